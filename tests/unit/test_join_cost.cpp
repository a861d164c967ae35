// Decode results against back-to-back ones (join cost), the decode fields' JSON round trip, and --gaps-from's
// compute per layer from a serve TPOT, with values worked out by hand.
#include <catch2/catch.hpp>

#include "../analysis/report_fixtures.hpp"
#include "analysis/analyze.hpp"
#include "analysis/gaps_from_serve.hpp"
#include "analysis/join_cost.hpp"
#include "common/error.hpp"

using namespace k25;
using namespace k25::test;

namespace {

// An AllReduce decode result at `tokens`: op p50 `op_p50_us`, comm p50 `comm_p50_us`.
PhaseResult decode_result(int tokens, double op_p50_us, double comm_p50_us) {
  PhaseResult r = allreduce_result(tokens, TimingMode::decode, comm_p50_us + 12200.0);
  r.op_us = stats_p50_p90(op_p50_us, op_p50_us * 1.1);
  r.op_us_source = "decode_trials";
  DecodeFigures d;
  d.gap_configured_us = 12200;
  d.skew_us = 5;
  d.gap_expected_us = 12401.5;
  d.gap_measured_us = stats_p50_p90(12402, 12410);
  d.comm_us = stats_p50_p90(comm_p50_us, comm_p50_us * 1.2);
  r.decode = d;
  return r;
}

}  // namespace

TEST_CASE("join cost: the decode op p50 over the eager one at the same phase and tokens",
          "[analysis][decode]") {
  std::vector<PhaseResult> results = {allreduce_result(16, TimingMode::eager, 2440.0),  // op p50 20 us
                                      allreduce_result(16, TimingMode::graph, 1220.0),
                                      decode_result(16, 47.0, 4880.0), decode_result(32, 50.0, 6100.0)};
  fill_join_costs(results);
  REQUIRE(results[2].decode);
  REQUIRE(results[2].decode->join_cost);
  CHECK(*results[2].decode->join_cost == Approx(47.0 / 20.0));
  CHECK(*results[2].decode->comm_over_back_to_back == Approx(2.0));  // 4880 / 2440, not the graph step
  CHECK_FALSE(results[3].decode->join_cost);                         // no eager result at 32 tokens
  CHECK_FALSE(results[0].decode);
}

TEST_CASE("decode fields survive report.json, derived ones are recomputed on analysis",
          "[analysis][decode]") {
  RunReport report = empty_report();
  report.results = {allreduce_result(16, TimingMode::eager, 2440.0), decode_result(16, 47.0, 4880.0)};
  analyze_report(report);
  const nlohmann::json j = report.results[1];
  CHECK(j.at("decode").at("gap_configured_us") == 12200.0);
  CHECK(j.at("decode").at("join_cost").get<double>() == Approx(2.35));
  CHECK(j.at("op_us_source") == "decode_trials");
  PhaseResult back = j.get<PhaseResult>();
  REQUIRE(back.decode);
  CHECK(back.decode->gap_expected_us == 12401.5);
  CHECK(back.decode->comm_us.p50 == 4880.0);
  CHECK_FALSE(back.decode->join_cost);  // derived: not read back
  const nlohmann::json eager = report.results[0];
  CHECK_FALSE(eager.contains("decode"));
}

TEST_CASE(
    "gaps from a serve report (--gaps-from): TPOT minus the step's communication, spread over the layers",
    "[analysis][decode]") {
  RunReport report = empty_report();
  // AllReduce 6.1 ms eager and 3.05 ms graph at 1 token, dispatch and combine 0.4 ms each in graph mode.
  report.results = {allreduce_result(1, TimingMode::eager, 6100.0),
                    allreduce_result(1, TimingMode::graph, 3050.0),
                    alltoall_result(Phase::dispatch, 1, TimingMode::graph, 400.0),
                    alltoall_result(Phase::combine, 1, TimingMode::graph, 400.0)};
  report.serve.levels = {serve_level(4, 20.0, 150.0), serve_level(1, 12.4, 79.0)};
  analyze_report(report);
  const ServeDerivedGaps gaps = gaps_from_serve(report, 61);
  CHECK(gaps.concurrency == 1);  // the lowest concurrency
  CHECK(gaps.tpot_ms == 12.4);
  CHECK(gaps.keys == std::vector<std::string>{"allreduce_graph", "alltoall_graph"});
  CHECK(gaps.comm_ms == Approx(3.05 + 0.8));
  CHECK(gaps.layer_gap_us == Approx((12.4 - 3.85) * 1000 / 61));
  CHECK(describe(gaps, "serve.json").find("TPOT 12.400 ms at concurrency 1") != std::string::npos);

  CHECK_THROWS_AS(gaps_from_serve(report, 0), UsageError);
  RunReport no_serve = empty_report();
  no_serve.results = report.results;
  analyze_report(no_serve);
  CHECK_THROWS_WITH(gaps_from_serve(no_serve, 61), Catch::Contains("no serve level with a TPOT"));
  RunReport too_slow = report;
  too_slow.serve.levels = {serve_level(1, 3.0, 79.0)};
  analyze_report(too_slow);
  CHECK_THROWS_WITH(gaps_from_serve(too_slow, 61), Catch::Contains("is not shorter than the TPOT"));
}
