// predict at its seams (issue 51): the first law on every base kind, a serve + replay base whose replay ran
// the decode mode, the base's caveats, the range and the wait said as they are, nccl-tests outputs as pasted
// (the rank count and where it came from, cut rows, lost '#'), extrapolation within what a link can do,
// per-rank sizes in a CSV. Every expected figure is worked out by hand beside it.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include "analysis/attribution.hpp"
#include "predict/input_formats.hpp"
#include "predict/predict_document.hpp"
#include "predict/report_inputs.hpp"
#include "predict/step_prediction.hpp"
#include "predict_test_inputs.hpp"

using namespace k25;
using namespace k25::predict_test;
using Catch::Matchers::Contains;

namespace {

// The capture fixture, changed by `change`, written under `name` and read as the base.
template <typename Change>
BaseDocument capture_variant(const std::string& name, Change change) {
  std::ifstream in(data("capture.json"));
  nlohmann::json doc = nlohmann::json::parse(in);
  change(doc);
  const std::string path = std::string(K25_BINARY_DIR) + "/" + name + ".json";
  std::ofstream(path) << doc.dump();
  return read_base_file(path);
}

// A serve + replay report on 2 ranks of a node with 2 cores (nothing oversubscribed): the eager burst at T=1
// and 4 (20 and 30 us per op, 100 ops), its decode mode at T=1 and 4 (30 and 44 us per op: the wait 10 and
// 14 us), and a serve level at C=4 of TPOT 20 ms (p90 25); the attribution as the report makes it.
RunReport serve_decode_report() {
  RunReport report;
  report.run.ranks = 2;
  report.run.hosts = {"node", "node"};
  report.run.host_cores = {{"node", 2}};
  report.topology.kind = "pcie";
  report.results.push_back(result(Phase::allreduce, TimingMode::eager, 1, 20, 2000));
  report.results.push_back(result(Phase::allreduce, TimingMode::eager, 4, 30, 3000));
  report.results.push_back(decode_result(1, 3000, "gap 20 us + 0 us per layer, skew < 60 us, seed 1"));
  report.results.push_back(decode_result(4, 4400, "gap 20 us + 0 us per layer, skew < 60 us, seed 1"));
  ServeLevel level;
  level.concurrency = 4;
  level.requests = level.completed = 16;
  level.tpot_ms = Stats{};
  level.tpot_ms->p50 = 20;
  level.tpot_ms->p90 = 25;
  report.serve.levels.push_back(level);
  report.attribution = attribute_decode_time(report.results, report.serve.levels, report.run.ranks);
  return report;
}

// The report's own eager replay as the alternative (its decode mode left out: the modelled estimates alone).
AltDocument own_eager_replay(const RunReport& report) {
  AltDocument own = alt_from_report(report, "base/report.json");
  own.label = "own";
  own.shaped.clear();
  own.shape.clear();
  return own;
}

}  // namespace

TEST_CASE("predict's first law on every base kind: the base's own link predicts no change, checked first",
          "[predict]") {
  SECTION("a capture with its ranks on one clock: the additive end, and one figure declared") {
    const LevelPrediction l =
        predict_with(capture_base(), alt_csv("kind,bytes,op_us\nallreduce,14336,25\n", "own-capture"), {})
            .levels[0];
    CHECK(l.high_estimate().step_us == 12000);
    const AltPrediction ring = predict_with(
        capture_base(), alt_csv("kind,bytes,op_us,overlap\nallreduce,14336,25,ring\n", "own-ring"), {});
    CHECK(ring.levels[0].high_estimate().step_us == 12000);
    CHECK_FALSE(ring.levels[0].is_range());
  }
  SECTION("a capture without join information (one rank's trace): back-to-back, each op its own") {
    const BaseDocument base = capture_variant(
        "no-join", [](nlohmann::json& doc) { doc["trace"]["join"]["groups"] = nlohmann::json::array(); });
    REQUIRE_FALSE(base.levels[0].kinds[0].join);
    const AltPrediction p =
        predict_with(base, alt_csv("kind,bytes,op_us\nallreduce,14336,40\n", "own-op"), {});
    CHECK(p.levels[0].high_estimate().step_us == 12000);  // 100 x 40 = the base's 4000 us
    CHECK_THAT(p.headline, Contains("TPOT at C=1 12.0 -> 12.0 ms (+0 %) [predicted, back-to-back"));
  }
  SECTION("a replay report, eager only: back-to-back with its own burst") {
    RunReport report;
    report.run.ranks = 2;
    report.results.push_back(result(Phase::allreduce, TimingMode::eager, 1, 20, 2000));
    const LevelPrediction l =
        predict_with(base_from_report(report, "eager.json"), own_eager_replay(report), {}).levels[0];
    CHECK(l.low == PredictMethod::back_to_back);
    CHECK(l.high_estimate().step_us == 2000);
  }
  SECTION("a replay report with its decode mode: the additive end") {
    RunReport report;
    report.run.ranks = 2;
    report.results.push_back(result(Phase::allreduce, TimingMode::eager, 1, 20, 2000));
    report.results.push_back(decode_result(1, 3000, "gap 20 us + 0 us per layer, skew < 60 us, seed 1"));
    const LevelPrediction l =
        predict_with(base_from_report(report, "decode.json"), own_eager_replay(report), {}).levels[0];
    CHECK(l.high_estimate().step_us == 5000);
  }
  SECTION("a serve + replay report, eager: TPOT back-to-back") {
    RunReport report = serve_decode_report();
    report.results.erase(report.results.begin() + 2, report.results.end());  // the decode mode left out
    const LevelPrediction l =
        predict_with(base_from_report(report, "merged.json"), own_eager_replay(report), {}).levels[0];
    REQUIRE(l.refused.empty());
    CHECK(l.high_estimate().step_us == Approx(20000));
  }
  SECTION("a serve + replay report whose replay ran the decode mode: TPOT at the additive end") {
    const RunReport report = serve_decode_report();
    const LevelPrediction l =
        predict_with(base_from_report(report, "merged.json"), own_eager_replay(report), {}).levels[0];
    REQUIRE(l.refused.empty());
    CHECK(l.high_estimate().step_us == Approx(20000));
  }
}

TEST_CASE("a serve + replay base whose replay ran the decode mode: TPOT with the decode mode's communication",
          "[predict]") {
  const RunReport report = serve_decode_report();
  const BaseDocument base = base_from_report(report, "merged/report.json");
  REQUIRE(base.levels.size() == 1);
  const BaseLevel& level = base.levels[0];
  CHECK(level.step_is_tpot);
  CHECK(level.step_us == 20000);
  REQUIRE(level.kinds.size() == 1);
  const BaseKind& k = level.kinds[0];
  // The decode mode's communication at T = C = 4 (measured there): 4400 us, 44 us an op, of which the eager
  // burst's op (30 us) is the transfer and the rest (14 us) the ranks' wait.
  CHECK(k.comm_us == 4400);
  CHECK(k.bytes == 4 * 14336);
  REQUIRE(k.join);
  CHECK(k.join->wait_us == Approx(14));
  CHECK(k.join->transfer_us == Approx(30));
  const AltPrediction p = predict_with(base, own_eager_replay(report), {});
  REQUIRE(p.levels[0].refused.empty());
  // Overlapping: 100 x max(14, 30) = 3000 us of 4400: TPOT 20 - 1.4 = 18.6 ms.
  CHECK(p.levels[0].low_estimate().step_us == Approx(18600));
  CHECK_THAT(p.headline,
             Contains("on own: TPOT at C=4 20.0 -> 18.6 .. 20.0 ms (-7 .. +0 %) [predicted, range:"));
}

TEST_CASE("the base's caveats go into every headline's tag", "[predict]") {
  RunReport report = serve_decode_report();
  report.topology.kind = "host";
  report.run.host_cores = {{"node", 1}};
  const AltPrediction host =
      predict_with(base_from_report(report, "host.json"), own_eager_replay(report), {});
  CHECK_THAT(host.headline, Contains("; the base: host transport; oversubscribed: 2 ranks on 1 core]"));
  report.topology.kind = "emulated";
  report.run.ranks = 1;
  report.run.hosts = {"node"};
  const AltPrediction emulated =
      predict_with(base_from_report(report, "emulated.json"), own_eager_replay(report), {});
  CHECK_THAT(emulated.headline, Contains("; the base: emulated ranks; one rank: nothing crosses a link]"));
  // A capture of one rank's trace whose world is one rank.
  const BaseDocument one = capture_variant("one-rank", [](nlohmann::json& doc) {
    doc["trace"]["ranks"] = {{{"rank", 0}, {"world_size", 1}}};
  });
  CHECK_THAT(predict_with(one, alt_file(data("nvlink.csv"), "nv"), {}).headline,
             Contains("; the base: one rank: nothing crosses a link]"));
  // Nothing to say: no tag of the base.
  report = serve_decode_report();
  CHECK_THAT(predict_with(base_from_report(report, "pcie.json"), own_eager_replay(report), {}).headline,
             !Contains("the base:"));
}

TEST_CASE("a range whose ends are equal is one figure, not a range of 'not said'", "[predict]") {
  // The join's transfer is the whole op (40 us): no wait, so the two ends are one.
  const BaseDocument base = capture_variant(
      "no-wait", [](nlohmann::json& doc) { doc["trace"]["join"]["groups"][0]["transfer_us"]["p50"] = 40; });
  REQUIRE(base.levels[0].kinds[0].join);
  CHECK(base.levels[0].kinds[0].join->wait_us == 0);
  const AltPrediction p = predict_with(base, alt_file(data("nvlink.csv"), "nv"), {});
  const LevelPrediction& l = p.levels[0];
  CHECK_FALSE(l.is_range());
  CHECK(l.low_estimate().step_us == l.high_estimate().step_us);
  CHECK_THAT(
      p.headline,
      Contains(
          "TPOT at C=1 12.0 -> 9.0 ms (-25 %) [predicted, additive: overlapping and additive agree: the base's wait for AllReduce is 0 us per op"));
  CHECK_THAT(p.headline, !Contains("not said"));
}

TEST_CASE("a wait clamped to 0 (the decode op faster than the eager one) is said", "[predict]") {
  RunReport report;
  report.run.ranks = 2;
  report.results.push_back(result(Phase::allreduce, TimingMode::eager, 1, 30, 3000));  // 30 us an op
  report.results.push_back(decode_result(1, 2500, "gap 20 us + 0 us per layer, skew < 60 us, seed 1"));
  const BaseDocument base = base_from_report(report, "noisy.json");
  const BaseKind& k = base.levels[0].kinds[0];
  REQUIRE(k.join);
  CHECK(k.join->wait_us == 0);
  CHECK(k.join->transfer_us == 25);
  const std::string said =
      "AllReduce at T=1: the decode mode's op (25.00 us) is faster than the eager burst's op (30.00 us), noise between the two: its wait taken as 0";
  CHECK_THAT(joined(base.notes), Contains(said));
  CHECK_THAT(joined(base.levels[0].notes), Contains(said));
}

namespace {

// The capture fixture with its decode steps made prefill steps (the trace holds no decode step), its serve
// figures kept or not.
BaseDocument prefill_capture(const std::string& name, bool serve_figures) {
  return capture_variant(name, [&](nlohmann::json& doc) {
    nlohmann::json groups = nlohmann::json::array();
    for (nlohmann::json g : doc["trace"]["groups"])
      if (g["phase"] == "decode") {
        g["phase"] = "prefill";
        groups.push_back(g);
      }
    doc["trace"]["groups"] = groups;
    doc["trace"]["join"]["groups"][0]["phase"] = "prefill";
    if (!serve_figures) doc["attribution"] = nlohmann::json::array();
  });
}

}  // namespace

TEST_CASE("a prefill step set against decode TPOT is said in the headline's tag", "[predict]") {
  const BaseDocument against_tpot = prefill_capture("prefill-tpot", true);
  REQUIRE(against_tpot.levels.size() == 1);
  REQUIRE(against_tpot.levels[0].step_is_tpot);
  CHECK_THAT(
      predict_with(against_tpot, alt_file(data("nvlink.csv"), "nv"), {}).headline,
      Contains("; the base: a prefill step set against decode TPOT (the trace holds no decode step)]"));
  // Without serve figures: the prediction is of a prefill step, said.
  const BaseDocument alone = prefill_capture("prefill-step", false);
  REQUIRE_FALSE(alone.levels[0].step_is_tpot);
  CHECK_THAT(predict_with(alone, alt_file(data("nvlink.csv"), "nv"), {}).headline,
             Contains("; the base: a prefill step (the trace holds no decode step)]"));
}

TEST_CASE("a capture's size taken from --model's config is shown as the config's, not measured",
          "[predict]") {
  const BaseDocument base = capture_variant("model-size", [](nlohmann::json& doc) {
    for (nlohmann::json& g : doc["trace"]["groups"])
      for (nlohmann::json& k : g["kinds"]) k["bytes_source"] = "model";
  });
  PredictDocument document;
  document.base = base;
  document.alternatives.push_back(predict_with(base, alt_file(data("nvlink.csv"), "nv"), {}));
  CHECK_THAT(document.alternatives[0].headline,
             Contains("; the base: AllReduce's size from the --model config, not the trace]"));
  CHECK_THAT(predict_markdown(document), Contains("AllReduce 100 x 14336 B (size from the --model config)"));
  // Measured sizes say nothing of it.
  CHECK_THAT(predict_with(capture_base(), alt_file(data("nvlink.csv"), "nv"), {}).headline,
             !Contains("config"));
}

TEST_CASE("extrapolated ops stay within what a link can do, and a prediction moving TPOT 10x is refused",
          "[predict]") {
  PredictOptions extrapolate;
  extrapolate.allow_extrapolation = true;
  SECTION("below the measured sizes: no faster than the smallest measured op") {
    // The log-log line through (1 MiB, 100 us) and (4 MiB, 400 us) gives 1.37 us at 14336 B.
    const AltDocument big =
        alt_csv("kind,bytes,op_us\nallreduce,1048576,100\nallreduce,4194304,400\n", "big");
    const LevelPrediction l = predict_with(capture_base(), big, extrapolate).levels[0];
    REQUIRE(l.refused.empty());
    const KindEstimate& k = estimate(l, PredictMethod::additive).kinds[0];
    CHECK(k.source == OpSource::extrapolated);
    CHECK(*k.alt_op_us == 100);
    CHECK_THAT(
        joined(l.notes),
        Contains(
            "AllReduce at 14336 B: below big's measured 1048576 .. 4194304 B: its smallest measured op, 100.00 us (an op takes no less at a smaller size)"));
  }
  SECTION("below them: no slower than the smallest measured size's op (fuzz_predict_csv's finding)") {
    // Two sizes 5 B apart whose p90s differ (250 us, and none: its p50, 200 us): the log-log p90 line's slope
    // is -46,800, so at 14336 B it gave an infinite p90, written to predict.json as null, which its reader
    // refused.
    const AltDocument close =
        alt_csv("kind,bytes,op_us,p90\nallreduce,1048571,200,250\nallreduce,1048576,200,\n", "close");
    const LevelPrediction l = predict_with(capture_base(), close, extrapolate).levels[0];
    REQUIRE(l.refused.empty());
    const KindEstimate& k = estimate(l, PredictMethod::additive).kinds[0];
    CHECK(*k.alt_op_us == 200);
    CHECK(*k.alt_op_p90_us == 250);
    CHECK(std::isfinite(k.new_exposed_p90_us));
  }
  SECTION("above them: no slower than the bandwidth of its largest size") {
    // (1 KiB, 5 us), (4 KiB, 40 us): slope 1.5, 261.9 us at 14336 B on the line; 40 x 14336 / 4096 = 140 us
    // at 4 KiB's bandwidth.
    const AltDocument steep = alt_csv("kind,bytes,op_us\nallreduce,1024,5\nallreduce,4096,40\n", "steep");
    const LevelPrediction l = predict_with(capture_base(), steep, extrapolate).levels[0];
    REQUIRE(l.refused.empty());
    CHECK(*estimate(l, PredictMethod::additive).kinds[0].alt_op_us == Approx(140));
    CHECK_THAT(
        joined(l.notes),
        Contains(
            "AllReduce at 14336 B: above steep's measured 1024 .. 4096 B: bounded by the bandwidth of its largest size (0.10 GB/s): 140.00 us"));
  }
  SECTION("a one-size curve far from the base's size, taken flat: TPOT 17x, refused as implausible") {
    const AltDocument huge = alt_csv("kind,bytes,op_us\nallreduce,134217728,2000\n", "huge");
    const AltPrediction p = predict_with(capture_base(), huge, extrapolate);
    const LevelPrediction& l = p.levels[0];
    // Additive: 12000 - 3000 + 100 x (15 + 2000) - 1000 = 209500 us: 17.5x the base's TPOT.
    CHECK_THAT(l.refused,
               Contains("implausible: TPOT 12.0 ms -> 209.5 ms is 17.5x the base's (more than 10x)"));
    CHECK_THAT(l.refused,
               Contains("AllReduce at 14336 B taken as 2000.00 us (extrapolated from huge's 134217728 B)"));
    CHECK(l.estimates.empty());
    CHECK_THAT(p.headline, Contains("on huge: not predicted [refused: implausible"));
  }
  SECTION(
      "TPOT moved more than 10x by a measured op: refused; a replay's step: what the alternative measured") {
    // 100 x (15 + 2000) - 1000 exposed: TPOT 12.0 -> 209.5 ms, measured at 14336 B.
    const AltDocument slow = alt_csv("kind,bytes,op_us\nallreduce,14336,2000\n", "slow");
    CHECK_THAT(
        predict_with(capture_base(), slow, {}).levels[0].refused,
        Contains(
            "implausible: TPOT 12.0 ms -> 209.5 ms is 17.5x the base's (more than 10x): AllReduce at 14336 B taken as 2000.00 us (measured from slow's 14336 B)"));
    // A replay's step of 5 ms, 3 ms of it communication (30 us an op: a wait of 10): on a link of 1000 us an
    // op the step is 5 - 3 + 100 x (10 + 1000) us = 103 ms, 20.6x: a step, measured: predicted.
    RunReport report;
    report.run.ranks = 2;
    report.results.push_back(result(Phase::allreduce, TimingMode::eager, 1, 20, 2000));
    report.results.push_back(decode_result(1, 3000, "gap 20 us + 0 us per layer, skew < 60 us, seed 1"));
    const LevelPrediction step =
        predict_with(base_from_report(report, "replay.json"),
                     alt_csv("kind,bytes,op_us\nallreduce,14336,1000\n", "tcp-like"), {})
            .levels[0];
    REQUIRE(step.refused.empty());
    CHECK(step.high_estimate().step_us == Approx(103000));
  }
}
