// predict's readers and model on hand-built inputs: every expected figure worked out by hand below.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include "common/error.hpp"
#include "predict/csv_alt_reader.hpp"
#include "predict/input_files.hpp"
#include "predict/nccl_tests_reader.hpp"
#include "predict/predict_document.hpp"
#include "predict/report_inputs.hpp"
#include "predict/step_prediction.hpp"

using namespace k25;
using Catch::Matchers::Contains;

namespace {

std::string data(const std::string& name) {
  return std::string(K25_SOURCE_DIR) + "/tests/predict/data/" + name;
}

// The capture fixture: decode batch 1, wall 10000 us (p90 11000), TPOT 12 ms; AllReduce 100 x 14336 B, 4000
// us merged of which 1000 us overlapped (0.25), start spread p50 15 us per op.
const BaseDocument& capture_base() {
  static const BaseDocument base = read_base_file(data("capture.json"));
  return base;
}

PhaseResult result(Phase phase, TimingMode mode, int tokens, double op_us, double step_us) {
  PhaseResult r;
  r.phase = phase;
  r.mode = mode;
  r.tokens = r.requested_tokens = tokens;
  r.ops_per_step = 100;
  r.bytes_per_op = 14336ULL * static_cast<unsigned>(tokens);
  r.op_us.p50 = op_us;
  r.op_us.p90 = op_us * 1.5;
  r.step_us.p50 = step_us;
  r.step_us.p90 = step_us + 100;
  r.ranks = 2;
  return r;
}

}  // namespace

TEST_CASE("predict reads a capture's decode step, its overlap and its join", "[predict]") {
  const BaseDocument& base = capture_base();
  REQUIRE(base.ranks == 2);
  REQUIRE(base.levels.size() == 1);  // the per-rank and prefill groups are left out
  const BaseLevel& level = base.levels[0];
  CHECK(level.batch == 1);
  CHECK(level.step_is_tpot);
  CHECK(level.step_us == 12000);
  CHECK(level.step_p90_us == 13000);  // TPOT + (wall p90 - wall p50)
  REQUIRE(level.kinds.size() == 1);
  const BaseKind& k = level.kinds[0];
  CHECK(k.kind == "allreduce");
  CHECK(k.dtype == "bf16");
  CHECK(k.bytes == 14336);
  CHECK(k.ops_per_step == 100);
  CHECK(k.comm_us == 4000);
  CHECK(k.hidden_us == 1000);  // 4000 x 1000 / 4000
  CHECK(k.wait_us == 15);
}

TEST_CASE("predict on a CSV: join-aware keeps the wait, back-to-back drops it, hidden stays hidden",
          "[predict]") {
  const AltDocument alt = read_alt_file(data("nvlink.csv"), "nvlink-node");
  const AltPrediction p = predict_with(capture_base(), alt, {});
  REQUIRE(p.levels.size() == 1);
  const LevelPrediction& l = p.levels[0];
  REQUIRE(l.refused.empty());
  CHECK(l.base_exposed_us == 3000);
  // 14336 B is halfway between 7168 and 28672 on log axes: sqrt(8 x 12) us, p90 sqrt(10 x 15) us.
  const double op = std::sqrt(96.0), op90 = std::sqrt(150.0);
  REQUIRE(l.join_aware);
  const KindEstimate& ja = l.join_aware->kinds[0];
  CHECK(ja.source == "interpolated");
  CHECK(*ja.alt_op_us == Approx(op));
  CHECK(ja.new_comm_us == Approx(100 * (15 + op)));                                     // 2479.80
  CHECK(ja.new_exposed_us == Approx(100 * (15 + op) - 1000));                           // 1479.80
  CHECK(l.join_aware->step_us == Approx(12000 - 3000 + 100 * (15 + op) - 1000));        // 10479.80
  CHECK(l.join_aware->step_p90_us == Approx(13000 - 3000 + 100 * (15 + op90) - 1000));  // 11724.74
  // Back-to-back: 100 x 9.80 = 979.8 us fits under the 1000 us of compute it ran beside: nothing exposed.
  REQUIRE(l.back_to_back);
  CHECK(l.back_to_back->exposed_us == 0);
  CHECK(l.back_to_back->step_us == 9000);
  CHECK(l.predicted().method == PredictMethod::join_aware);
  CHECK(*predicted_output_tokens_per_s(l) == Approx(1e6 / (12000 - 3000 + 100 * (15 + op) - 1000)));
  CHECK(p.headline == "on nvlink-node: TPOT at C=1 12.0 -> 10.5 ms (-13 %) [predicted, join-aware]");
  CHECK(l.moved_most == std::vector<std::string>{"AllReduce -1520.2 us"});
}

TEST_CASE("predict reads nccl-tests' text table", "[predict]") {
  const AltDocument alt = read_alt_file(data("all_reduce_perf.txt"), "");
  CHECK(alt.format == "nccl-tests text");
  CHECK(alt.label == "all_reduce_perf");
  CHECK(alt.ranks == 2);
  REQUIRE(alt.curves.size() == 1);
  CHECK(alt.curves[0].kind == "allreduce");
  CHECK(alt.curves[0].dtype == "bf16");
  REQUIRE(alt.curves[0].points.size() == 3);
  CHECK(alt.curves[0].points[1].bytes == 14336);
  CHECK(alt.curves[0].points[1].op_us == 10);  // out-of-place
  const AltPrediction p = predict_with(capture_base(), alt, {});
  CHECK(p.mismatches.empty());
  // Measured at 14336 B: 100 x (15 + 10) - 1000 = 1500 exposed; 12000 - 3000 + 1500.
  CHECK(p.levels[0].join_aware->step_us == 10500);
  CHECK(p.levels[0].join_aware->kinds[0].source == "measured");
  CHECK(p.levels[0].back_to_back->step_us == 9000);  // 100 x 10 = 1000: all hidden
}

TEST_CASE("predict reads nccl-tests' -J JSON", "[predict]") {
  const AltDocument alt = read_alt_file(data("all_reduce_perf.json"), "json");
  CHECK(alt.format == "nccl-tests JSON");
  CHECK(alt.ranks == 2);
  REQUIRE(alt.curves.size() == 1);
  CHECK(alt.curves[0].kind == "allreduce");
  REQUIRE(alt.curves[0].points.size() == 3);
  CHECK(alt.curves[0].points[1].op_us == 16);
  CHECK(alt.curves[0].points[2].op_us == 20);  // out-of-place "nan": in-place
  const AltPrediction p = predict_with(capture_base(), alt, {});
  // 100 x (15 + 16) - 1000 = 2100 exposed; 12000 - 3000 + 2100. Back-to-back: 1600 - 1000 = 600.
  CHECK(p.levels[0].join_aware->step_us == 11100);
  CHECK(p.levels[0].back_to_back->step_us == 9600);
}

TEST_CASE("predict from a replay report: decode mode's join kept, eager curve of the alternative",
          "[predict]") {
  RunReport base_report;
  base_report.run.ranks = 2;
  base_report.results.push_back(result(Phase::allreduce, TimingMode::eager, 1, 20, 2000));
  PhaseResult decode = result(Phase::allreduce, TimingMode::decode, 1, 35, 5000);
  decode.decode = DecodeFigures{};
  decode.decode->comm_us.p50 = 3000;
  base_report.results.push_back(decode);
  const BaseDocument base = base_from_report(base_report, "base.json");
  REQUIRE(base.levels.size() == 1);
  CHECK_FALSE(base.levels[0].step_is_tpot);
  CHECK(base.levels[0].step_us == 5000);
  REQUIRE(base.levels[0].kinds.size() == 1);
  CHECK(base.levels[0].kinds[0].wait_us == 10);  // 3000 / 100 - 20

  RunReport alt_report;
  alt_report.run.ranks = 2;
  alt_report.results.push_back(result(Phase::allreduce, TimingMode::eager, 1, 50, 5000));
  alt_report.results.push_back(result(Phase::allreduce, TimingMode::eager, 2, 70, 7000));
  alt_report.results.push_back(result(Phase::allreduce, TimingMode::graph, 1, 1, 100));  // eager preferred
  AltDocument alt = alt_from_report(alt_report, "tcp/report.json");
  alt.label = "tcp";
  REQUIRE(alt.curves.size() == 1);
  CHECK(alt.curves[0].points.size() == 2);
  const AltPrediction p = predict_with(base, alt, {});
  const LevelPrediction& l = p.levels[0];
  CHECK(l.join_aware->step_us == 8000);    // 5000 - 3000 + 100 x (10 + 50)
  CHECK(l.back_to_back->step_us == 7000);  // 5000 - 3000 + 100 x 50
  CHECK(l.join_aware->step_p90_us == 5100 - 3000 + 100 * (10 + 75));
  CHECK(p.headline == "on tcp: step at T=1 5.0 -> 8.0 ms (+60 %) [predicted, join-aware]");
  CHECK_FALSE(predicted_output_tokens_per_s(l));  // a step, not TPOT
}

TEST_CASE("predict without join information says back-to-back and why", "[predict]") {
  RunReport base_report;
  base_report.results.push_back(result(Phase::allreduce, TimingMode::eager, 1, 20, 2000));
  const BaseDocument base = base_from_report(base_report, "base.json");
  const AltDocument alt = read_alt_file(data("all_reduce_perf.txt"), "nccl");
  const AltPrediction p = predict_with(base, alt, {});
  const LevelPrediction& l = p.levels[0];
  CHECK_FALSE(l.join_aware);
  CHECK(l.back_to_back->step_us == 1000);  // 2000 - 2000 + 100 x 10
  CHECK_THAT(prediction_tag(l),
             Contains("[predicted, back-to-back: the base has no join information for AllReduce"));
}

TEST_CASE("predict refuses sizes outside the measured range unless told, and says kinds it lacks",
          "[predict]") {
  BaseDocument base = capture_base();
  base.levels[0].kinds[0].bytes = 1 << 20;  // above 28672
  BaseKind gather;
  gather.kind = "allgather";
  gather.bytes = 4096;
  gather.ops_per_step = 1;
  gather.comm_us = 30;
  gather.wait_us = 0;
  base.levels[0].kinds.push_back(gather);
  const AltDocument alt = read_alt_file(data("nvlink.csv"), "nv");
  const AltPrediction refused = predict_with(base, alt, {});
  CHECK(
      refused.levels[0].refused ==
      "AllReduce at 1048576 B lies outside nv's measured 7168 .. 28672 B (--extrapolate labels it instead)");
  CHECK_THAT(refused.headline, Contains("on nv: not predicted [refused: AllReduce at 1048576 B"));
  PredictOptions options;
  options.allow_extrapolation = true;
  const AltPrediction labelled = predict_with(base, alt, options);
  const LevelPrediction& l = labelled.levels[0];
  REQUIRE(l.refused.empty());
  CHECK(l.join_aware->kinds[0].source == "extrapolated");
  CHECK(l.join_aware->kinds[1].source == "kept");
  CHECK(l.join_aware->kinds[1].new_exposed_us == 30);
  CHECK_THAT(prediction_tag(l), Contains(", extrapolated, partial: some kinds kept at the base's time]"));
  CHECK(l.notes.back() == "AllGather: nv has no AllGather: kept at the base's time");
}

TEST_CASE("predict says a rank count or dtype that differs", "[predict]") {
  AltDocument alt = read_alt_file(data("all_reduce_perf.txt"), "eight");
  alt.ranks = 8;
  alt.curves[0].dtype = "fp32";
  const AltPrediction p = predict_with(capture_base(), alt, {});
  REQUIRE(p.mismatches.size() == 2);
  CHECK(p.mismatches[0] ==
        "rank count differs: the base ran 2 ranks, eight measured 8: its op times are another group size's");
  CHECK(p.mismatches[1] == "AllReduce: dtype differs: the base's is bf16, eight's fp32");
}

TEST_CASE("predict refuses bad input with one line naming the file", "[predict]") {
  CHECK_THROWS_WITH(alt_from_csv("kind,bytes\nallreduce,10\n", "a.csv"),
                    "a.csv: CSV without a 'op_us' column (columns: kind, bytes, op_us[, p90][, dtype])");
  CHECK_THROWS_WITH(alt_from_csv("kind,bytes,op_us\nallreduce,10,-3\n", "a.csv"),
                    "a.csv:2: op_us -3 is not positive");
  CHECK_THROWS_WITH(alt_from_csv("kind,bytes,op_us\nallreduce,ten,3\n", "a.csv"),
                    "a.csv:2: bytes 'ten' is not a number");
  CHECK_THROWS_WITH(alt_from_csv("kind,bytes,op_us,p90\nallreduce,10,3,2\n", "a.csv"),
                    "a.csv:2: p90 is below op_us");
  CHECK_THROWS_WITH(alt_from_csv("kind,bytes,op_us\n", "a.csv"), "a.csv: CSV without a row of figures");
  CHECK_THROWS_WITH(
      alt_from_nccl_tests_text("#       size         count      type   redop    root     time\n"
                               "  1024  256  float  sum  -1  5.0\n",
                               "t.txt"),
      "t.txt: nccl-tests output without its '# Collective test starting: NAME' line: the collective it measured is not known");
  CHECK_THROWS_WITH(alt_from_nccl_tests_text("# Collective test starting: all_reduce_perf\n"
                                             "#       size         count      type   redop    root     time\n"
                                             "  1024  256  float  sum  -1  -5.0\n",
                                             "t.txt"),
                    "t.txt:3: a negative size or time");
  CHECK_THROWS_WITH(read_alt_file(data("capture.json"), ""),
                    Contains("capture.json: none of the alternative's formats"));
  CHECK_THROWS_WITH(read_base_file(data("nvlink.csv")),
                    Contains("nvlink.csv: not JSON: the base is a capture.json or a k25comm report.json"));
  CHECK_THROWS_AS(read_base_file(data("absent.json")), UsageError);
}

TEST_CASE("predict.json carries its schema version, the model and both methods", "[predict]") {
  PredictResult r;
  r.base = capture_base();
  r.alternatives.push_back(predict_with(r.base, read_alt_file(data("nvlink.csv"), "nv"), {}));
  const nlohmann::json j = predict_json(r);
  CHECK(j["schema_version"] == 1);
  CHECK(j["model"].size() == model_lines().size());
  const nlohmann::json& level = j["alternatives"][0]["levels"][0];
  CHECK(level["method"] == "join-aware");
  CHECK(level["unit"] == "tpot");
  CHECK(level["back_to_back"]["step_us"] == 9000.0);
  const std::string md = predict_markdown(r);
  CHECK_THAT(md, Contains("**on nv: TPOT at C=1 12.0 -> 10.5 ms (-13 %) [predicted, join-aware]**"));
  CHECK_THAT(md, Contains("Predicted, not measured"));
  const std::string csv = predict_csv(r);
  CHECK_THAT(csv, Contains("nv,1,tpot,join-aware,12000.0,3000.0,1479.79"));
  CHECK_THAT(csv, Contains("nv,1,tpot,back-to-back,12000.0,3000.0,0.0,9000.0,"));
}

TEST_CASE("predict from a serve and replay report: TPOT per concurrency and tok/s", "[predict]") {
  RunReport report;
  report.run.ranks = 2;
  report.results.push_back(result(Phase::allreduce, TimingMode::eager, 1, 20, 2000));
  report.results.push_back(result(Phase::allreduce, TimingMode::eager, 4, 30, 3000));
  ServeLevel level;
  level.concurrency = 4;
  level.tpot_ms = Stats{};
  level.tpot_ms->p50 = 20;
  level.tpot_ms->p90 = 25;
  report.serve.levels.push_back(level);
  AttributionRow row;
  row.concurrency = 4;
  row.tokens = 4;
  row.tpot_ms = 20;
  row.comm.push_back({"allreduce_eager", 4, 3.0, EstimateSource::measured, 0.15});
  report.attribution.push_back(row);
  const BaseDocument base = base_from_report(report, "merged/report.json");
  REQUIRE(base.levels.size() == 1);
  const BaseLevel& b = base.levels[0];
  CHECK(b.step_is_tpot);
  CHECK(b.batch == 4);
  CHECK(b.step_us == 20000);
  CHECK(b.step_p90_us == 25000);
  REQUIRE(b.kinds.size() == 1);
  CHECK(b.kinds[0].bytes == 4 * 14336);  // the T=4 result's bytes_per_op
  CHECK(b.kinds[0].comm_us == 3000);
  CHECK_FALSE(b.kinds[0].wait_us);  // eager: no join information
  AltDocument alt;
  alt.label = "fast";
  add_point(alt, "allreduce", "bf16", {4 * 14336, 10, 12});
  add_point(alt, "allreduce", "bf16", {8 * 14336, 15, 18});
  const AltPrediction p = predict_with(base, alt, {});
  const LevelPrediction& l = p.levels[0];
  // 20000 - 3000 + 100 x 10 = 18000 us; p90: 25000 - 3000 + 100 x 12.
  CHECK(l.back_to_back->step_us == 18000);
  CHECK(l.back_to_back->step_p90_us == 23200);
  CHECK(*predicted_output_tokens_per_s(l) == Approx(4 * 1e6 / 18000));  // 222.2 tok/s
  CHECK_THAT(
      p.headline,
      Contains(
          "on fast: TPOT at C=4 20.0 -> 18.0 ms (-10 %) [predicted, back-to-back: the base has no join information for AllReduce"));
}
