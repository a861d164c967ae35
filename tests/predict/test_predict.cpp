// predict's readers and model on hand-built inputs: every expected figure worked out by hand below.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>

#include "analysis/gaps_from_capture.hpp"
#include "common/collective_kind.hpp"
#include "common/error.hpp"
#include "plan/decode_gaps.hpp"
#include "predict/csv_alt_reader.hpp"
#include "predict/input_formats.hpp"
#include "predict/nccl_tests_reader.hpp"
#include "predict/predict_document.hpp"
#include "predict/report_inputs.hpp"
#include "predict/step_prediction.hpp"
#include "predict_test_inputs.hpp"

using namespace k25;
using namespace k25::predict_test;
using Catch::Matchers::Contains;

TEST_CASE("predict reads a capture's decode step, its overlap and each op split into wait and transfer",
          "[predict]") {
  const BaseDocument& base = capture_base();
  CHECK(base.format == "capture.json");
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
  CHECK(k.name == "AllReduce");
  CHECK(k.dtype == "bf16");
  CHECK(k.bytes == 14336);
  CHECK(k.ops_per_step == 100);
  CHECK(k.comm_us == 4000);
  CHECK(k.hidden_us == 1000);  // 4000 x 1000 / 4000
  REQUIRE(k.join);
  CHECK(k.join->transfer_us == 25);
  CHECK(k.join->wait_us == 15);  // 4000 / 100 - 25: ops x (wait + transfer) is the base's communication
  CHECK(k.ops_per_step * (k.join->wait_us + k.join->transfer_us) == k.comm_us);
}

TEST_CASE(
    "predict on a CSV: the range from overlapping to additive, back-to-back beside, hidden stays hidden",
    "[predict]") {
  const AltDocument alt = alt_file(data("nvlink.csv"), "nvlink-node");
  CHECK(alt.format == "CSV");
  const AltPrediction p = predict_with(capture_base(), alt, {});
  REQUIRE(p.levels.size() == 1);
  const LevelPrediction& l = p.levels[0];
  REQUIRE(l.refused.empty());
  CHECK(l.base_exposed_us == 3000);
  // 14336 B is halfway between 7168 and 28672 on log axes: sqrt(8 x 12) us, p90 sqrt(10 x 15) us.
  const double op = std::sqrt(96.0), op90 = std::sqrt(150.0);
  REQUIRE(l.is_range());
  CHECK(l.low == PredictMethod::overlapping);
  CHECK(l.high == PredictMethod::additive);
  const StepEstimate& additive = estimate(l, PredictMethod::additive);
  CHECK(additive.kinds[0].source == OpSource::interpolated);
  CHECK(*additive.kinds[0].alt_op_us == Approx(op));
  CHECK(additive.kinds[0].new_comm_us == Approx(100 * (15 + op)));                 // 2479.80
  CHECK(additive.step_us == Approx(12000 - 3000 + 100 * (15 + op) - 1000));        // 10479.80
  CHECK(additive.step_p90_us == Approx(13000 - 3000 + 100 * (15 + op90) - 1000));  // 11724.74
  // Overlapping: each op the longer of the wait (15) and the alternative's op (9.80): 100 x 15 - 1000
  // exposed.
  const StepEstimate& overlapping = estimate(l, PredictMethod::overlapping);
  CHECK(overlapping.exposed_us == Approx(500));
  CHECK(overlapping.step_us == Approx(9500));
  CHECK(overlapping.step_p90_us == Approx(13000 - 3000 + 500));  // max(15, 12.25) = 15 at p90 too
  // Back-to-back: 100 x 9.80 = 979.8 us fits under the 1000 us of compute it ran beside: nothing exposed.
  CHECK(estimate(l, PredictMethod::back_to_back).exposed_us == 0);
  CHECK(estimate(l, PredictMethod::back_to_back).step_us == 9000);
  CHECK(*output_tokens_per_s(l, additive) == Approx(1e6 / (12000 - 3000 + 100 * (15 + op) - 1000)));
  CHECK(
      p.headline ==
      "on nvlink-node: TPOT at C=1 12.0 -> 9.5 .. 10.5 ms (-21 .. -13 %) [predicted, range: overlapping .. additive: how nvlink-node's AllReduce lies against the ranks' wait is not said: a one-shot push overlaps it, a ring adds to it]");
  CHECK(l.moved_most == std::vector<std::string>{"AllReduce -1520.2 us"});
}

TEST_CASE("predict's first law: the base's own link as the alternative predicts the base", "[predict]") {
  // Each op's own transfer after the last rank's start (25 us at 14336 B) as the alternative.
  const AltDocument undeclared = alt_csv("kind,bytes,op_us\nallreduce,14336,25\n", "own-link");
  const LevelPrediction l = predict_with(capture_base(), undeclared, {}).levels[0];
  CHECK(l.high_estimate().step_us == 12000);  // additive: 100 x (15 + 25) - 1000 hidden = the base's 3000
  CHECK(l.low_estimate().step_us == 12000 - 3000 + 100 * 25 - 1000);  // overlapping: max(15, 25) = 25
  // Declared additive (a ring, as the base's own NCCL): one figure, the base itself.
  const AltDocument ring = alt_csv("kind,bytes,op_us,overlap\nallreduce,14336,25,ring\n", "own-ring");
  const AltPrediction p = predict_with(capture_base(), ring, {});
  CHECK_FALSE(p.levels[0].is_range());
  CHECK(p.levels[0].low == PredictMethod::additive);
  CHECK(p.headline ==
        "on own-ring: TPOT at C=1 12.0 -> 12.0 ms (+0 %) [predicted, additive: own-ring declares it]");
  // Declared overlapping (a one-shot push): one figure, the overlapping one.
  const AltDocument push = alt_csv("kind,bytes,op_us,overlap\nallreduce,14336,10,one-shot\n", "one-shot");
  const LevelPrediction o = predict_with(capture_base(), push, {}).levels[0];
  CHECK(o.low == PredictMethod::overlapping);
  CHECK(o.high == PredictMethod::overlapping);
  CHECK(o.high_estimate().step_us == 12000 - 3000 + 100 * 15 - 1000);
  CHECK_THROWS_WITH(alt_csv("kind,bytes,op_us,overlap\nallreduce,14336,10,butterfly\n", "odd"),
                    Contains("odd.csv:2: overlap 'butterfly' is none of additive"));
}

TEST_CASE("predict reads nccl-tests' text table", "[predict]") {
  const AltDocument alt = alt_file(data("all_reduce_perf.txt"));
  CHECK(alt.format == "nccl-tests text");
  CHECK(alt.label == "all_reduce_perf");
  CHECK(alt.ranks == 2);
  CHECK(alt.hosts == 1);
  CHECK(alt.launch == "eager");
  REQUIRE(alt.curves.size() == 1);
  CHECK(alt.curves[0].kind == "allreduce");
  CHECK(alt.curves[0].dtype == "bf16");
  REQUIRE(alt.curves[0].points.size() == 3);
  CHECK(alt.curves[0].points[1].bytes == 14336);
  CHECK(alt.curves[0].points[1].op_us == 10);  // out-of-place
  const AltPrediction p = predict_with(capture_base(), alt, {});
  CHECK(p.mismatches.empty());
  const LevelPrediction& l = p.levels[0];
  // Measured at 14336 B: additive 100 x (15 + 10) - 1000 = 1500 exposed; overlapping 100 x 15 - 1000 = 500.
  CHECK(estimate(l, PredictMethod::additive).step_us == 10500);
  CHECK(estimate(l, PredictMethod::additive).kinds[0].source == OpSource::measured);
  CHECK(estimate(l, PredictMethod::overlapping).step_us == 9500);
  CHECK(estimate(l, PredictMethod::back_to_back).step_us == 9000);  // 100 x 10 = 1000: all hidden
}

TEST_CASE("predict reads nccl-tests' -J JSON", "[predict]") {
  const AltDocument alt = alt_file(data("all_reduce_perf.json"), "json");
  CHECK(alt.format == "nccl-tests JSON");
  CHECK(alt.ranks == 2);  // two processes of one GPU each
  REQUIRE(alt.curves.size() == 1);
  CHECK(alt.curves[0].kind == "allreduce");
  REQUIRE(alt.curves[0].points.size() == 3);
  CHECK(alt.curves[0].points[1].op_us == 16);
  CHECK(alt.curves[0].points[2].op_us == 20);  // out-of-place "nan": in-place
  const LevelPrediction l = predict_with(capture_base(), alt, {}).levels[0];
  // 100 x (15 + 16) - 1000 = 2100 exposed; 12000 - 3000 + 2100. Back-to-back: 1600 - 1000 = 600.
  CHECK(estimate(l, PredictMethod::additive).step_us == 11100);
  CHECK(estimate(l, PredictMethod::back_to_back).step_us == 9600);
}

TEST_CASE("nccl-tests outputs as people paste them: versions, -d all, -o all, prefixes, several runs",
          "[predict]") {
  SECTION("2.10 to 2.16: no 'Collective test starting' line; the kind from the program it names") {
    const AltDocument alt = alt_file(nccl_tests("all_reduce-2.13-pcie-8gpu.txt"), "", 8);
    REQUIRE(alt.curves.size() == 1);
    CHECK(alt.curves[0].kind == "allreduce");
    CHECK(alt.curves[0].dtype == "fp32");
    CHECK(alt.curves[0].points.size() == 4);
    CHECK(alt.ranks == 8);
    CHECK_THAT(alt.notes.front(), Contains("from the *_perf program named in it"));
  }
  SECTION("before 2.10: an error column, rank lines without a group; the kind from --kind or the file name") {
    CHECK_THROWS_WITH(alt_file(nccl_tests("nccl-2.0-v100-old.txt")), Contains("give --kind KIND"));
    const AltDocument alt = alt_file(nccl_tests("nccl-2.0-v100-old.txt"), "old", 2, "allreduce");
    REQUIRE(alt.curves.size() == 1);
    CHECK(alt.curves[0].points.size() == 3);  // the "error" floats (2e-07) are no #wrong
    CHECK(alt.curves[0].points[2].op_us == 25);
    CHECK(alt.ranks == 2);
    CHECK(alt.launch.empty());  // its settings line has no graph field
    const std::string named = std::string(K25_BINARY_DIR) + "/v100_all_gather.txt";
    std::ifstream in(nccl_tests("nccl-2.0-v100-old.txt"));
    std::ofstream(named) << in.rdbuf();
    CHECK(alt_file(named).curves[0].kind == "allgather");  // from the file name
    CHECK_THROWS_WITH(alt_file(nccl_tests("dtypes-all.txt"), "", 2, "allgather"),
                      Contains("the output says it measured AllReduce, --kind says AllGather"));
  }
  SECTION("-d all: the base's element type, never the first one") {
    const AltDocument alt = alt_file(nccl_tests("dtypes-all.txt"));
    CHECK(alt.curves.size() == 4);
    BaseDocument base = capture_base();
    base.levels[0].kinds[0].bytes = 8192;
    const LevelPrediction bf16 = predict_with(base, alt, {}).levels[0];
    CHECK(*estimate(bf16, PredictMethod::back_to_back).kinds[0].alt_op_us == 11);  // not int8's 5
    base.levels[0].kinds[0].dtype = "fp32";
    CHECK(*estimate(predict_with(base, alt, {}).levels[0], PredictMethod::back_to_back).kinds[0].alt_op_us ==
          9);
    base.levels[0].kinds[0].dtype = "fp8";
    const AltPrediction none = predict_with(base, alt, {});
    CHECK_THAT(none.levels[0].refused, Contains("gives none of the base's kinds"));
    CHECK_THAT(
        none.levels[0].notes.back(),
        Contains("dtypes-all's AllReduce is measured in int8, fp16, fp32, bf16, and not in the base's fp8"));
  }
  SECTION("-o all: the sum rows") {
    const AltDocument alt = alt_file(nccl_tests("redops-all.txt"));
    REQUIRE(alt.curves[0].points.size() == 1);
    CHECK(alt.curves[0].points[0].op_us == 10);
    CHECK_THAT(joined(alt.notes),
               Contains("reductions avg, max, min, prod, sum measured (-o all): the sum rows read"));
  }
  SECTION("several runs of one kind: the base's rank count chooses, never merged") {
    const AltDocument eight = alt_file(nccl_tests("two-runs-8-and-16-ranks.txt"), "", 8);
    CHECK(eight.ranks == 8);
    CHECK(eight.curves[0].points[0].op_us == 18);
    const AltDocument sixteen = alt_file(nccl_tests("two-runs-8-and-16-ranks.txt"), "", 16);
    CHECK(sixteen.ranks == 16);
    CHECK(sixteen.hosts == 2);
    CHECK(sixteen.curves[0].points[0].op_us == 45);
    CHECK(
        sixteen.mismatches ==
        std::vector<std::string>{"its ranks ran on 2 hosts: its op times include the network between hosts"});
    CHECK_THROWS_WITH(
        alt_file(nccl_tests("two-runs-8-and-16-ranks.txt"), "", 4),
        Contains(
            "2 runs of AllReduce in one file (8 ranks at line 16; 16 ranks on 2 hosts at line 48), and 0 of them are of the base's 4 ranks"));
  }
  SECTION("mpirun's --tag-output prefix and NCCL INFO lines between") {
    const AltDocument alt = alt_file(nccl_tests("mpirun-tagged.txt"));
    CHECK(alt.ranks == 2);
    REQUIRE(alt.curves.size() == 1);
    CHECK(alt.curves[0].points.size() == 2);
  }
  SECTION("a size with wrong results, a line cut short: left out and said") {
    const AltDocument wrong = alt_file(nccl_tests("wrong-results.txt"));
    CHECK(wrong.curves[0].points.size() == 1);
    CHECK_THAT(
        wrong.notes.front(),
        Contains("wrong-results.txt:13: 16384 B measured 3 wrong elements (#wrong): that size left out"));
    const AltDocument cut = alt_file(nccl_tests("cut-short.txt"));
    CHECK(cut.curves[0].points.size() == 1);
    CHECK_THAT(cut.notes.front(),
               Contains("cut-short.txt:13: a result line cut short (6 of 13 columns): 16384 B left out"));
  }
  SECTION("an outlier between the placements: the smaller, said") {
    const std::string table =
        "# Collective test starting: all_reduce_perf\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
        "      524288        262144  bfloat16     sum      -1    240.7    2.18    4.09      0    125.7    4.17    7.82      0\n"
        "     1048576        524288  bfloat16     sum      -1    140.0    7.49   14.04      0    139.0    7.54   14.15      0\n";
    const AltDocument alt = alt_from_nccl_tests_text(table, "h200.txt", {});
    CHECK(alt.curves[0].points[0].op_us == 125.7);
    CHECK(alt.curves[0].points[1].op_us == 140);
    CHECK_THAT(
        alt.notes.front(),
        Contains(
            "h200.txt:3: 524288 B took 240.7 us out of place and 125.7 us in place: more than 1.5x apart"));
  }
  SECTION("-C host times are refused: not an op's time") {
    CHECK_THROWS_WITH(alt_file(nccl_tests("cputime.txt")),
                      Contains("cputime.txt:10: nccl-tests run with -C (cputime)"));
    CHECK_THROWS_WITH(alt_file(nccl_tests("all_gather-cputime.json")),
                      Contains("nccl-tests run with -C (cpu_time)"));
  }
  SECTION("rank lines with any spacing; ranks on several hosts said") {
    const AltDocument alt = alt_file(nccl_tests("two-hosts-odd-spacing.txt"));
    CHECK(alt.ranks == 2);
    CHECK(alt.hosts == 2);
    CHECK(predict_with(capture_base(), alt, {}).mismatches.size() == 1);
  }
  SECTION("-J: ranks = processes x GPUs per process; graph launches said against an eager base") {
    const AltDocument alt = alt_file(nccl_tests("all_gather-2proc-4gpu-graph.json"), "b200", 8);
    CHECK(alt.ranks == 8);
    CHECK(alt.launch == "graph");
    CHECK(alt.curves[0].kind == "allgather");
    BaseDocument base = capture_base();
    base.ranks = 8;
    base.levels[0].kinds[0].kind = "allgather";
    base.levels[0].kinds[0].name = "AllGather";
    base.levels[0].kinds[0].launch = "eager";
    base.levels[0].kinds[0].bytes = 262144;
    const AltPrediction p = predict_with(base, alt, {});
    REQUIRE(p.mismatches.size() == 1);
    CHECK_THAT(p.mismatches[0], Contains("AllGather: launched as eager in the base, as graph in b200"));
    CHECK_THROWS_WITH(alt_file(nccl_tests("all_gather-cut.json")),
                      Contains("nccl-tests -J JSON that does not parse (cut short"));
  }
}

TEST_CASE("the size rule: an AllGather's or ReduceScatter's rank part times the ranks is nccl-tests' size",
          "[predict]") {
  CHECK(nccl_tests_bytes(CollectiveKind::allgather, 50272, 8) == 402176);  // the vLLM B200 trace's AllGather
  CHECK(nccl_tests_bytes(CollectiveKind::reducescatter, 4096, 4) == 16384);
  CHECK(nccl_tests_bytes(CollectiveKind::allreduce, 14336, 8) == 14336);
  CHECK(nccl_tests_bytes(CollectiveKind::alltoallv, 7408, 8) == 7408);
}

TEST_CASE(
    "predict from a replay report: the burst per op like for like, the decode mode's join, the identity",
    "[predict]") {
  RunReport base_report;
  base_report.run.ranks = 2;
  base_report.results.push_back(result(Phase::allreduce, TimingMode::eager, 1, 20, 2000));  // burst 20 us/op
  base_report.results.push_back(decode_result(1, 3000, "gap 20 us + 0 us per layer, skew < 60 us, seed 1"));
  const BaseDocument base = base_from_report(base_report, "base.json");
  REQUIRE(base.levels.size() == 1);
  CHECK_FALSE(base.levels[0].step_is_tpot);
  CHECK(base.levels[0].step_us == 5000);
  REQUIRE(base.levels[0].kinds[0].join);
  CHECK(base.levels[0].kinds[0].join->wait_us == 10);  // 3000 / 100 - 2000 / 100
  CHECK(base.levels[0].kinds[0].join->transfer_us == 20);
  CHECK(base.shape == "gap 20 us + 0 us per layer, skew < 60 us, seed 1");

  // Its own eager replay as the alternative: the burst per op is what the base's transfer was: the base.
  AltDocument own = alt_from_report(base_report, "base/report.json");
  own.label = "own";
  own.shaped.clear();  // the modelled estimate alone
  const LevelPrediction same = predict_with(base, own, {}).levels[0];
  CHECK(same.high_estimate().step_us == 5000);

  RunReport alt_report;
  alt_report.run.ranks = 2;
  alt_report.results.push_back(result(Phase::allreduce, TimingMode::eager, 1, 1, 5000));  // burst 50 us/op
  alt_report.results.push_back(result(Phase::allreduce, TimingMode::eager, 2, 1, 7000));
  alt_report.results.push_back(result(Phase::allreduce, TimingMode::graph, 1, 1, 100));  // eager preferred
  AltDocument alt = alt_from_report(alt_report, "tcp/report.json");
  alt.label = "tcp";
  REQUIRE(alt.curves.size() == 1);
  CHECK(alt.curves[0].points.size() == 2);
  CHECK(alt.curves[0].points[0].op_us == 50);  // step_us / ops, never the per-op pass's op_us (1 us)
  const AltPrediction p = predict_with(base, alt, {});
  const LevelPrediction& l = p.levels[0];
  CHECK(estimate(l, PredictMethod::additive).step_us == 8000);      // 5000 - 3000 + 100 x (10 + 50)
  CHECK(estimate(l, PredictMethod::overlapping).step_us == 7000);   // 5000 - 3000 + 100 x max(10, 50)
  CHECK(estimate(l, PredictMethod::back_to_back).step_us == 7000);  // 5000 - 3000 + 100 x 50
  CHECK(estimate(l, PredictMethod::additive).step_p90_us == 5100 - 3000 + 100 * (10 + 51));
  CHECK(
      p.headline ==
      "on tcp: step at T=1 5.0 -> 7.0 .. 8.0 ms (+40 .. +60 %) [predicted, range: overlapping .. additive: how tcp's AllReduce lies against the ranks' wait is not said: a one-shot push overlaps it, a ring adds to it; the base: host transport]");
  CHECK_FALSE(output_tokens_per_s(l, l.high_estimate()));  // a step, not TPOT
}

TEST_CASE("predict takes a replay whose decode mode ran the base's shape as measured", "[predict]") {
  RunReport base_report;
  base_report.results.push_back(result(Phase::allreduce, TimingMode::eager, 1, 20, 2000));
  base_report.results.push_back(decode_result(1, 3000, "gap 20 us + 0 us per layer, skew < 60 us, seed 1"));
  const BaseDocument base = base_from_report(base_report, "base.json");
  RunReport alt_report;
  alt_report.results.push_back(result(Phase::allreduce, TimingMode::eager, 1, 1, 5000));
  alt_report.results.push_back(decode_result(1, 6500, "gap 20 us + 0 us per layer, skew < 60 us, seed 1"));
  AltDocument alt = alt_from_report(alt_report, "tcp/report.json");
  alt.label = "tcp";
  const AltPrediction p = predict_with(base, alt, {});
  const LevelPrediction& l = p.levels[0];
  CHECK_FALSE(l.is_range());
  CHECK(l.low == PredictMethod::measured_shape);
  CHECK(l.high_estimate().step_us == 5000 - 3000 + 6500);  // its decode communication, measured
  CHECK(l.high_estimate().step_p90_us == 5100 - 3000 + 6700);
  CHECK_THAT(
      p.headline,
      Contains(
          "5.0 -> 8.5 ms (+70 %) [predicted, measured with the base's shape: tcp's decode mode ran this base's gaps and skew"));
  // Another shape: not used, said; the modelled range instead.
  alt.shape = "gap 5 us + 0 us per layer, skew < 0 us, seed 1";
  const LevelPrediction other = predict_with(base, alt, {}).levels[0];
  CHECK(other.is_range());
  CHECK_THAT(other.notes.back(), Contains("tcp's decode mode ran another shape"));
}

TEST_CASE("a capture's shape: what --gaps-from replays, and the key predict matches it by", "[predict]") {
  std::ifstream in(data("capture.json"));
  const nlohmann::json doc = nlohmann::json::parse(in);
  const std::vector<CapturedShape> shapes = shapes_from_capture(doc, "capture.json");
  REQUIRE(shapes.size() == 1);
  CHECK(shapes[0].kind == CollectiveKind::allreduce);
  CHECK(shapes[0].batch == 1);
  CHECK(shapes[0].gap_us == 45);  // (10000 - 4000) / 100 - the ranks' mean arrival (0 + 30) / 2
  REQUIRE(shapes[0].rank_arrival_us.size() == 2);
  CHECK(shapes[0].rank_arrival_us[1].p90 == 40);
  DecodeGapSpec spec;
  spec.captured = shapes;
  spec.seed = 7;  // the seed aside: a replay with another seed ran the same shape
  CHECK(capture_base().shape == shape_key(spec));
  CHECK_THAT(capture_base().shape, Contains("captured: AllReduce batch 1 gap 45.0 us, 2 ranks' arrivals (#"));
  nlohmann::json old = doc;
  old["trace"]["join"]["groups"][0].erase("arrivals");
  CHECK_THROWS_WITH(shapes_from_capture(old, "old.json"),
                    Contains("old.json: the capture's join has no ranks' arrivals"));
}

TEST_CASE("predict refuses a size it cannot read, and says kinds it lacks", "[predict]") {
  BaseDocument base = capture_base();
  base.levels[0].kinds[0].bytes = 1 << 20;  // above 28672
  BaseKind gather;
  gather.kind = "allgather";
  gather.name = "AllGather";
  gather.bytes = 4096;
  gather.ops_per_step = 1;
  gather.comm_us = 30;
  gather.join = BaseJoin{0, 30, "test"};
  base.levels[0].kinds.push_back(gather);
  const AltDocument alt = alt_file(data("nvlink.csv"), "nv");
  const AltPrediction refused = predict_with(base, alt, {});
  CHECK(
      refused.levels[0].refused ==
      "AllReduce at 1048576 B lies outside nv's measured 7168 .. 28672 B (--extrapolate labels it instead)");
  CHECK_THAT(refused.headline, Contains("on nv: not predicted [refused: AllReduce at 1048576 B"));
  PredictOptions options;
  options.allow_extrapolation = true;
  const LevelPrediction l = predict_with(base, alt, options).levels[0];
  REQUIRE(l.refused.empty());
  CHECK(estimate(l, PredictMethod::additive).kinds[0].source == OpSource::extrapolated);
  CHECK(estimate(l, PredictMethod::additive).kinds[1].source == OpSource::kept);
  CHECK(estimate(l, PredictMethod::additive).kinds[1].new_exposed_us == 30);
  CHECK_THAT(prediction_tag(l), Contains(", extrapolated, partial: some kinds kept at the base's time]"));
  CHECK(l.notes.back() == "AllGather: nv has no AllGather: kept at the base's time");
}

TEST_CASE("a one-point curve at another size is refused, or taken as flat with --extrapolate", "[predict]") {
  const AltDocument one = alt_csv("kind,bytes,op_us\nallreduce,8192,9\n", "one-row");
  const AltPrediction refused = predict_with(capture_base(), one, {});
  CHECK(
      refused.levels[0].refused ==
      "AllReduce at 14336 B: one-row measured it at 8192 B only, and one size gives no curve to read another from (--extrapolate takes it as flat)");
  PredictOptions options;
  options.allow_extrapolation = true;
  const LevelPrediction flat = predict_with(capture_base(), one, options).levels[0];
  CHECK(*estimate(flat, PredictMethod::additive).kinds[0].alt_op_us == 9);
  CHECK(estimate(flat, PredictMethod::additive).kinds[0].source == OpSource::extrapolated);
}

TEST_CASE("dispatch and combine are told apart: their own curves, no false dtype mismatch", "[predict]") {
  RunReport report;
  report.run.ranks = 2;
  for (const Phase phase : {Phase::dispatch, Phase::combine}) {
    PhaseResult r = result(phase, TimingMode::eager, 1, 30, phase == Phase::dispatch ? 3000 : 4000);
    r.kind_issued = CollectiveKind::alltoallv;
    r.dtype = phase == Phase::dispatch ? Dtype::fp8 : Dtype::bf16;
    r.bytes_per_rank_mean = phase == Phase::dispatch ? 7408 : 14336;
    report.results.push_back(r);
  }
  const BaseDocument base = base_from_report(report, "ep/report.json");
  AltDocument alt = alt_from_report(report, "ep/report.json");
  alt.label = "same";
  const AltPrediction p = predict_with(base, alt, {});
  CHECK(p.mismatches.empty());
  const StepEstimate& b2b = estimate(p.levels[0], PredictMethod::back_to_back);
  REQUIRE(b2b.kinds.size() == 2);
  CHECK(b2b.kinds[0].name == "dispatch");
  CHECK(*b2b.kinds[0].alt_op_us == 30);  // 3000 / 100: dispatch's own burst
  CHECK(b2b.kinds[1].name == "combine");
  CHECK(*b2b.kinds[1].alt_op_us == 40);
  CHECK_THAT(prediction_tag(p.levels[0]), Contains("no join information for dispatch, combine"));
}

TEST_CASE("predict refuses what no link can do, a raw trace as the base, and bad input, in one line",
          "[predict]") {
  CHECK_THROWS_WITH(
      alt_csv("kind,bytes,op_us\nallreduce,7168,0.0095\nallreduce,28672,0.012\n", "in-ms"),
      Contains("in-ms.csv: AllReduce at 7168 B takes 0.0095 us per op (755 GB/s): no link does that"));
  const std::string trace = std::string(K25_BINARY_DIR) + "/rank0.pt.trace.json";
  std::ofstream(trace) << R"({"schemaVersion": 1, "traceEvents": []})";
  CHECK_THROWS_WITH(
      read_base_file(trace),
      Contains("rank0.pt.trace.json: a PyTorch profiler (Kineto) trace, not a base: run `k25comm capture`"));
  CHECK_THROWS_WITH(
      alt_from_csv("kind,bytes\nallreduce,10\n", "a.csv", 2),
      "a.csv: CSV without a 'op_us' column (columns: kind, bytes, op_us[, p90][, dtype][, overlap][, bytes_per][, ranks])");
  CHECK_THROWS_WITH(alt_from_csv("kind,bytes,op_us\nallreduce,10,-3\n", "a.csv", 2),
                    "a.csv:2: op_us -3 is not positive");
  CHECK_THROWS_WITH(alt_from_csv("kind,bytes,op_us\nallreduce,ten,3\n", "a.csv", 2),
                    "a.csv:2: bytes 'ten' is not a number");
  CHECK_THROWS_WITH(alt_from_csv("kind,bytes,op_us,p90\nallreduce,10,3,2\n", "a.csv", 2),
                    "a.csv:2: p90 is below op_us");
  CHECK_THROWS_WITH(alt_from_csv("kind,bytes,op_us\n", "a.csv", 2), "a.csv: CSV without a row of figures");
  // A "Rank" line whose number is no rank (out of int's range, a fraction) is not a rank line: the table
  // still reads (the sanitized build catches a cast out of range here; the fuzzer found it).
  const AltDocument odd_ranks = alt_from_nccl_tests_text(
      "# Collective test starting: all_reduce_perf\n"
      "#  Rank 6.66667e35 Group 0 Pid 1 on h device 0\n"
      "#  Rank 0.5 Group 0 Pid 1 on h device 0\n"
      "#  Rank 0 Group 0 Pid 1 on h device 0\n"
      "#       size         count      type   redop    root     time\n"
      "  1024  256  float  sum  -1  5.0\n",
      "t.txt", {});
  REQUIRE(odd_ranks.curves.size() == 1);
  CHECK(odd_ranks.curves[0].points[0].op_us == 5.0);
  CHECK_THROWS_WITH(alt_from_nccl_tests_text("# Collective test starting: all_reduce_perf\n"
                                             "#       size         count      type   redop    root     time\n"
                                             "  1024  256  float  sum  -1  -5.0\n",
                                             "t.txt", {}),
                    "t.txt:3: a negative size or time");
  CHECK_THROWS_WITH(read_alt_file(data("capture.json"), "", {}),
                    Contains("capture.json: none of the alternative's formats"));
  CHECK_THROWS_WITH(
      read_base_file(data("nvlink.csv")),
      Contains("nvlink.csv: not JSON, but none of the base's formats (capture.json, report.json)"));
  CHECK_THROWS_AS(read_base_file(data("absent.json")), UsageError);
}

TEST_CASE("predict.json carries its schema version, the model, the range and every estimate", "[predict]") {
  PredictDocument r;
  r.base = capture_base();
  r.alternatives.push_back(predict_with(r.base, alt_file(data("nvlink.csv"), "nv"), {}));
  const nlohmann::json j = predict_json(r);
  CHECK(j["schema_version"] == kPredictSchemaVersion);
  CHECK(j["model"].size() == model_lines().size());
  CHECK(j["base"]["levels"][0]["kinds"][0]["join"]["wait_us"] == 15.0);
  const nlohmann::json& level = j["alternatives"][0]["levels"][0];
  CHECK(level["predicted"]["method"] == "range");
  CHECK(level["predicted"]["low"] == "overlapping");
  CHECK(level["predicted"]["high"] == "additive");
  CHECK(level["predicted"]["step_us"][0] == 9500.0);
  CHECK(level["unit"] == "tpot");
  CHECK(level["estimates"]["back-to-back"]["step_us"] == 9000.0);
  CHECK(level["estimates"]["measured-shape"].is_null());
  const std::string md = predict_markdown(r);
  CHECK_THAT(md, Contains("**on nv: TPOT at C=1 12.0 -> 9.5 .. 10.5 ms (-21 .. -13 %) [predicted, range:"));
  CHECK_THAT(md, Contains("Predicted, not measured"));
  const std::string csv = predict_csv(r);
  CHECK_THAT(csv, Contains("nv,1,tpot,additive,high,12000.0,3000.0,1479.79"));
  CHECK_THAT(csv, Contains("nv,1,tpot,overlapping,low,12000.0,3000.0,500.0,9500.0,"));
  CHECK_THAT(csv, Contains("nv,1,tpot,back-to-back,,12000.0,3000.0,0.0,9000.0,"));
}

TEST_CASE("predict.json reads back through its one document, field for field, from a file the writer wrote",
          "[predict]") {
  // Every kind of level: a range (nvlink.csv), one refused (small.csv), one measured with the base's shape.
  PredictDocument written;
  written.tool_version = "9.9.9";
  written.git_sha = "abc1234";
  written.created_at = "2025-01-01T00:00:00Z";
  written.command_line = "k25comm predict capture.json --with nvlink.csv";
  written.base = capture_base();
  written.alternatives.push_back(predict_with(written.base, alt_file(data("nvlink.csv"), "nv"), {}));
  written.alternatives.push_back(predict_with(written.base, alt_file(data("small.csv"), "small"), {}));
  RunReport base_report;
  base_report.results.push_back(result(Phase::allreduce, TimingMode::eager, 1, 20, 2000));
  base_report.results.push_back(decode_result(1, 3000, "gap 20 us + 0 us per layer, skew < 60 us, seed 1"));
  AltDocument shaped = alt_from_report(base_report, "tcp/report.json");
  shaped.label = "tcp";
  written.alternatives.push_back(predict_with(base_from_report(base_report, "base.json"), shaped, {}));
  const std::string path = std::string(K25_BINARY_DIR) + "/round-trip-predict.json";
  std::ofstream(path) << predict_json_text(written);
  std::ifstream in(path);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};

  const PredictDocument read = read_predict_document(text, path);
  CHECK(predict_json(read) == nlohmann::json::parse(text));  // every member, derived ones derived again
  CHECK(read.schema_version == kPredictSchemaVersion);
  CHECK(read.git_sha == "abc1234");
  REQUIRE(read.base.levels.size() == 1);
  REQUIRE(read.base.levels[0].kinds[0].join);
  CHECK(read.base.levels[0].kinds[0].join->wait_us == 15);
  REQUIRE(read.alternatives.size() == 3);
  CHECK(read.alternatives[0].levels[0].is_range());
  CHECK(read.alternatives[0].levels[0].low_estimate().step_us == 9500);
  CHECK(
      read.alternatives[1].levels[0].refused ==
      "AllReduce at 14336 B lies outside small's measured 1024 .. 4096 B (--extrapolate labels it instead)");
  CHECK(read.alternatives[2].levels[0].low == PredictMethod::measured_shape);
  CHECK(predict_markdown(read) == predict_markdown(written));
  CHECK(predict_csv(read) == predict_csv(written));

  // A member the reader names and the file lacks (a writer that renamed it) fails, naming it.
  nlohmann::json renamed = nlohmann::json::parse(text);
  renamed["alternatives"][0]["levels"][0]["estimates"]["additive"]["kinds"][0].erase("new_exposed_us");
  CHECK_THROWS_WITH(read_predict_document(renamed.dump(), "renamed.json"),
                    Contains("renamed.json: not predict.json as this build writes it") &&
                        Contains("key 'new_exposed_us' not found"));
  nlohmann::json other = nlohmann::json::parse(text);
  other["schema_version"] = 1;
  CHECK_THROWS_WITH(
      read_predict_document(other.dump(), "old.json"),
      "old.json: predict.json schema_version 1, this build reads " + std::to_string(kPredictSchemaVersion));
  CHECK_THROWS_WITH(read_predict_document("[1]", "a.json"), "a.json: not JSON (predict.json is one object)");
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
  row.comm.push_back({{"allreduce", TimingMode::eager}, 4, 3.0, EstimateSource::measured, 0.15});
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
  CHECK_FALSE(b.kinds[0].join);  // eager: no join information
  AltDocument alt;
  alt.label = "fast";
  AltCurve key;
  key.kind = "allreduce";
  key.dtype = "bf16";
  add_point(alt.curves, key, {4 * 14336, 10, 12});
  add_point(alt.curves, key, {8 * 14336, 15, 18});
  const AltPrediction p = predict_with(base, alt, {});
  const LevelPrediction& l = p.levels[0];
  CHECK_FALSE(l.is_range());
  // 20000 - 3000 + 100 x 10 = 18000 us; p90: 25000 - 3000 + 100 x 12.
  CHECK(l.high_estimate().step_us == 18000);
  CHECK(l.high_estimate().step_p90_us == 23200);
  CHECK(*output_tokens_per_s(l, l.high_estimate()) == Approx(4 * 1e6 / 18000));  // 222.2 tok/s
  CHECK_THAT(
      p.headline,
      Contains(
          "on fast: TPOT at C=4 20.0 -> 18.0 ms (-10 %) [predicted, back-to-back: the base has no join information for AllReduce"));
}

TEST_CASE("docs/predict.md lists exactly the format table's rows", "[predict]") {
  std::ifstream in(std::string(K25_SOURCE_DIR) + "/docs/predict.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const std::string begin = "<!-- predict-formats: begin (made from src/predict/input_formats.cpp) -->\n";
  const std::string end = "<!-- predict-formats: end -->";
  const std::string expected_path = std::string(K25_BINARY_DIR) + "/predict-formats.md";
  std::ofstream(expected_path) << predict_formats_markdown();
  INFO("docs/predict.md's block between the predict-formats markers should read as " << expected_path);
  const std::size_t from = doc.find(begin), to = doc.find(end);
  REQUIRE(from != std::string::npos);
  REQUIRE(to != std::string::npos);
  CHECK(doc.substr(from + begin.size(), to - from - begin.size()) == predict_formats_markdown());
}

TEST_CASE("a trace without phase marks or batch (training, DLRM) is a base of its steps", "[predict]") {
  std::ifstream in(data("capture.json"));
  nlohmann::json doc = nlohmann::json::parse(in);
  for (nlohmann::json& g : doc["trace"]["groups"]) {
    if (g["phase"] == "decode") g["phase"] = "unknown";
    g["batch"] = nullptr;
    g["tokens"] = nullptr;
  }
  doc["trace"]["join"]["groups"][0]["phase"] = "unknown";
  doc["trace"]["join"]["groups"][0]["batch"] = nullptr;
  doc["trace"]["ranks"] = {{{"rank", 0}, {"world_size", 8}}, {{"rank", 1}, {"world_size", 8}}};
  const std::string path = std::string(K25_BINARY_DIR) + "/unknown-phase-capture.json";
  std::ofstream(path) << doc.dump();
  const BaseDocument base = read_base_file(path);
  CHECK(base.ranks == 8);  // the group size the files say, not the two files read
  REQUIRE(base.levels.size() == 1);
  CHECK(base.levels[0].batch == 0);
  CHECK_FALSE(base.levels[0].step_is_tpot);
  REQUIRE(base.levels[0].kinds[0].join);
  CHECK(base.levels[0].kinds[0].join->wait_us == 15);
  const AltPrediction p = predict_with(base, alt_file(data("all_reduce_perf.txt"), "", 8), {});
  CHECK_THAT(p.headline,
             Contains("on all_reduce_perf: step 10.0 -> 7.5 .. 8.5 ms (-25 .. -15 %) [predicted, range:"));
  CHECK(
      p.mismatches.front() ==
      "rank count differs: the base's group is 8 ranks, all_reduce_perf measured 2: its op times are another group size's");
}
