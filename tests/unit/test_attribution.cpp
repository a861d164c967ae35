// Decode-time attribution: the 55 % example, log-log interpolation and extrapolation, All-to-All tokens per
// rank.
#include <catch2/catch.hpp>

#include <cmath>

#include "../analysis/report_fixtures.hpp"
#include "analysis/analyze.hpp"
#include "analysis/attribution.hpp"
#include "analysis/loglog_curve.hpp"
#include "report/markdown_report.hpp"

using namespace k25;
using namespace k25::test;

TEST_CASE("TPOT 12.4 ms and an AllReduce burst of 6.81 ms at T = 1 give 55 %", "[attribution]") {
  const std::vector<PhaseResult> results = {allreduce_result(1, TimingMode::eager, 6810.0)};
  const std::vector<ServeLevel> levels = {serve_level(1, 12.4, 79.0)};
  const auto rows = attribute_decode_time(results, levels, 8);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].concurrency == 1);
  CHECK(rows[0].tokens == 1);
  CHECK(rows[0].tpot_ms == 12.4);
  const CommShare* share = find_share(rows[0], ShareKey{"allreduce", TimingMode::eager});
  REQUIRE(share != nullptr);
  CHECK(share->comm_ms == Approx(6.81));
  CHECK(share->share == Approx(6.81 / 12.4));
  CHECK(std::round(share->share * 100) == 55);
  CHECK(share->source == EstimateSource::measured);

  RunReport report = empty_report();
  report.results = results;
  report.serve.ran = true;
  report.serve.levels = levels;
  analyze_report(report);
  const std::string md = render_markdown(report);
  CHECK(md.find("6.810 (55 %)") != std::string::npos);
  CHECK(nlohmann::json(report.attribution).at(0).at("share").at("allreduce_eager").get<double>() ==
        Approx(0.549193548));
}

TEST_CASE("token counts that were not measured are interpolated on log-log axes and marked",
          "[attribution]") {
  const std::vector<PhaseResult> results = {
      allreduce_result(1, TimingMode::eager, 6810.0), allreduce_result(4, TimingMode::eager, 8000.0),
      allreduce_result(1, TimingMode::graph, 3000.0), allreduce_result(4, TimingMode::graph, 3000.0)};
  const std::vector<ServeLevel> levels = {serve_level(2, 13.0, 150.0), serve_level(8, 15.0, 500.0)};
  const auto rows = attribute_decode_time(results, levels, 8);
  REQUIRE(rows.size() == 2);

  const CommShare* at2 = find_share(rows[0], ShareKey{"allreduce", TimingMode::eager});
  REQUIRE(at2 != nullptr);
  CHECK(at2->source == EstimateSource::interpolated);
  CHECK(at2->comm_ms == Approx(std::sqrt(6.81 * 8.0)));  // halfway between T=1 and T=4 on a log scale
  CHECK(at2->share == Approx(std::sqrt(6.81 * 8.0) / 13.0));
  const CommShare* graph2 = find_share(rows[0], ShareKey{"allreduce", TimingMode::graph});
  REQUIRE(graph2 != nullptr);
  CHECK(graph2->comm_ms == Approx(3.0));
  CHECK(graph2->source == EstimateSource::interpolated);

  const CommShare* at8 = find_share(rows[1], ShareKey{"allreduce", TimingMode::eager});
  REQUIRE(at8 != nullptr);
  CHECK(at8->source == EstimateSource::extrapolated);
  CHECK(at8->comm_ms == Approx(8.0 * std::sqrt(8.0 / 6.81)));  // the T=1..4 slope continued to T=8

  RunReport report = empty_report();
  report.results = results;
  report.serve.levels = levels;
  analyze_report(report);
  const std::string md = render_markdown(report);
  CHECK(md.find("8.671 (58 %) **") != std::string::npos);
  CHECK(nlohmann::json(report.attribution).at(0).at("source").at("allreduce_eager") == "interpolated");
  CHECK(nlohmann::json(report.attribution).at(1).at("source").at("allreduce_eager") == "extrapolated");
}

TEST_CASE("All-to-All attribution uses C / ranks tokens per rank and sums dispatch and combine",
          "[attribution]") {
  const std::vector<PhaseResult> results = {alltoall_result(Phase::dispatch, 2, TimingMode::eager, 2000.0),
                                            alltoall_result(Phase::combine, 2, TimingMode::eager, 3000.0)};
  const auto rows = attribute_decode_time(results, {serve_level(16, 20.0, 800.0)}, 8);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].alltoall_tokens_per_rank == 2.0);
  CHECK(find_share(rows[0], ShareKey{"allreduce", TimingMode::eager}) == nullptr);
  const CommShare* both = find_share(rows[0], ShareKey{"alltoall", TimingMode::eager});
  REQUIRE(both != nullptr);
  CHECK(both->comm_ms == Approx(5.0));
  CHECK(both->share == Approx(0.25));
  CHECK(both->source == EstimateSource::measured);
  CHECK(alltoall_tokens_per_rank(1, 8) == 1.0);  // at least one token per rank
  CHECK(alltoall_tokens_per_rank(12, 8) == 1.5);
}

TEST_CASE("attribution rows survive the JSON round trip", "[attribution]") {
  const auto rows = attribute_decode_time(
      {allreduce_result(1, TimingMode::eager, 6810.0), allreduce_result(8, TimingMode::eager, 9000.0)},
      {serve_level(4, 13.0, 300.0)}, 8);
  const nlohmann::json j = rows;
  const auto back = j.get<std::vector<AttributionRow>>();
  REQUIRE(back.size() == 1);
  CHECK(back[0].tpot_ms == 13.0);
  REQUIRE(back[0].comm.size() == 1);
  CHECK(back[0].comm[0].key == ShareKey{"allreduce", TimingMode::eager});
  CHECK(j.at(0).at("order").at(0) == "allreduce_eager");
  CHECK(back[0].comm[0].comm_ms == Approx(rows[0].comm[0].comm_ms));
  CHECK(back[0].comm[0].source == EstimateSource::interpolated);
}

TEST_CASE("no attribution without serve results or for levels that completed nothing", "[attribution]") {
  const std::vector<PhaseResult> results = {allreduce_result(1, TimingMode::eager, 6810.0)};
  CHECK(attribute_decode_time(results, {}, 8).empty());
  ServeLevel failed = serve_level(1, 0.0, 0.0);
  failed.completed = 0;
  CHECK(attribute_decode_time(results, {failed}, 8).empty());
}

TEST_CASE("a log-log curve with one point answers only at that point", "[attribution]") {
  const LogLogCurve one({{4, 10.0}});
  CHECK(one.at(4)->value == 10.0);
  CHECK_FALSE(one.at(8).has_value());
  CHECK_FALSE(LogLogCurve({}).at(1).has_value());
  const LogLogCurve power({{1, 1.0}, {16, 4.0}, {256, 16.0}});  // value = sqrt(tokens)
  CHECK(power.at(64)->value == Approx(8.0));
  CHECK(power.at(64)->source == EstimateSource::interpolated);
}

TEST_CASE("a share's key is its family and mode, read back with the tokens of its family", "[attribution]") {
  CHECK(share_key(Phase::dispatch, TimingMode::graph).text() == "dispatch_graph");
  CHECK(parse_share_key("alltoall_eager") == ShareKey{"alltoall", TimingMode::eager});
  CHECK(parse_share_key("reducescatter_decode") == ShareKey{"reducescatter", TimingMode::decode});
  CHECK_THROWS_WITH(parse_share_key("allreduce_fast"), Catch::Matchers::Contains("unknown attribution key"));
  // An AllGather's share counts the step's tokens T = C, an All-to-All's those per rank.
  const nlohmann::json row = {{"concurrency", 16},
                              {"tokens", 16},
                              {"alltoall_tokens_per_rank", 2.0},
                              {"tpot_ms", 10.0},
                              {"comm_ms", {{"allgather_eager", 1.0}, {"dispatch_graph", 2.0}}},
                              {"order", {"allgather_eager", "dispatch_graph"}}};
  const AttributionRow back = row.get<AttributionRow>();
  REQUIRE(back.comm.size() == 2);
  CHECK(back.comm[0].tokens == 16);
  CHECK(back.comm[1].tokens == 2.0);
  CHECK(graph_else_eager_share(back, "dispatch") == &back.comm[1]);
  CHECK(graph_else_eager_share(back, "allreduce") == nullptr);
}
