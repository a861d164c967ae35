// Graph padding: vLLM's capture sizes, the padded count of exact token counts, the sweep schedule (what is
// measured once and reported for which counts), and the padding carried through results, report.json, the
// console, report.md, the headline, fits and compare. (sweep.graph_sizes in the config: test_config.cpp.)
#include <catch2/catch.hpp>

#include <sstream>

#include "../analysis/report_fixtures.hpp"
#include "analysis/compare.hpp"
#include "analysis/headline.hpp"
#include "analysis/latency_fit.hpp"
#include "analysis/point_result.hpp"
#include "common/error.hpp"
#include "plan/graph_padding.hpp"
#include "report/console_table.hpp"
#include "report/markdown_report.hpp"
#include "report/report_files.hpp"

using namespace k25;
using namespace k25::test;

namespace {

// (requested, padded, above_largest) of every request of a schedule entry's mode.
using Requests = std::vector<std::tuple<int, int, bool>>;
Requests requests_of(const MeasuredCount& count, TimingMode mode) {
  for (const ModeRequests& m : count.modes)
    if (m.mode == mode) {
      Requests out;
      for (const GraphPadding& p : m.requests) out.emplace_back(p.requested, p.padded, p.above_largest);
      return out;
    }
  return {};
}

// A graph result as the measure loop reports it: measured at `padded`, asked for `requested`.
PhaseResult graph_result(int requested, int padded, double step_p50_us) {
  PhaseResult measured = allreduce_result(padded, TimingMode::graph, step_p50_us);
  return result_for_request(measured, pad_to_graph_size(requested, vllm_graph_capture_sizes()));
}

}  // namespace

TEST_CASE("vLLM's default capture sizes: 1, 2, 4, 8..248 by 8, 256..512 by 16", "[graph_padding]") {
  const std::vector<int> sizes = vllm_graph_capture_sizes();
  REQUIRE(sizes.size() == 51);
  CHECK(std::vector<int>(sizes.begin(), sizes.begin() + 6) == std::vector<int>{1, 2, 4, 8, 16, 24});
  CHECK(std::vector<int>(sizes.end() - 4, sizes.end()) == std::vector<int>{464, 480, 496, 512});
  CHECK(sizes[33] == 248);
  CHECK(sizes[34] == 256);
  CHECK(sizes[35] == 272);
  CHECK(std::is_sorted(sizes.begin(), sizes.end()));
}

TEST_CASE("a token count is padded to the smallest capture size at or above it", "[graph_padding]") {
  const std::vector<int> sizes = vllm_graph_capture_sizes();
  const std::vector<std::pair<int, int>> expected = {
      {1, 1},     {2, 2},     {3, 4},     {4, 4},     {5, 8},     {9, 16},    {17, 24},  {247, 248},
      {248, 248}, {249, 256}, {250, 256}, {257, 272}, {300, 304}, {511, 512}, {512, 512}};
  for (const auto& [requested, padded] : expected) {
    INFO("requested " << requested);
    const GraphPadding p = pad_to_graph_size(requested, sizes);
    CHECK(p.requested == requested);
    CHECK(p.padded == padded);
    CHECK_FALSE(p.above_largest);
  }
  SECTION("above the largest size: not padded, and said so (vLLM runs it eagerly)") {
    for (const int requested : {513, 600, 65536}) {
      const GraphPadding p = pad_to_graph_size(requested, sizes);
      CHECK(p.padded == requested);
      CHECK(p.above_largest);
    }
  }
  SECTION("a configured list") {
    CHECK(pad_to_graph_size(1, {4, 8}).padded == 4);
    CHECK(pad_to_graph_size(5, {4, 8}).padded == 8);
    CHECK(pad_to_graph_size(9, {4, 8}).above_largest);
    CHECK(pad_to_graph_size(7, {7}).padded == 7);
  }
}

TEST_CASE("the schedule measures a padded count once and reports it for each count asked",
          "[graph_padding]") {
  const std::vector<int> sizes = {1, 2, 4, 8};
  const std::vector<MeasuredCount> schedule =
      measured_counts({3, 4, 5}, {TimingMode::eager, TimingMode::graph}, sizes);
  REQUIRE(schedule.size() == 4);
  CHECK(schedule[0].tokens == 3);
  CHECK(schedule[0].modes.size() == 1);
  CHECK(requests_of(schedule[0], TimingMode::eager) == Requests{{3, 3, false}});
  CHECK(schedule[1].tokens == 4);
  REQUIRE(schedule[1].modes.size() == 2);
  CHECK(schedule[1].modes[0].mode == TimingMode::eager);  // the sweep's mode order
  CHECK(requests_of(schedule[1], TimingMode::eager) == Requests{{4, 4, false}});
  CHECK(requests_of(schedule[1], TimingMode::graph) == Requests{{3, 4, false}, {4, 4, false}});
  CHECK(schedule[2].tokens == 5);
  CHECK(requests_of(schedule[2], TimingMode::eager) == Requests{{5, 5, false}});
  CHECK(schedule[3].tokens == 8);
  CHECK(requests_of(schedule[3], TimingMode::graph) == Requests{{5, 8, false}});
  CHECK(describe_graph_padding(schedule, sizes) == "3 -> 4, 5 -> 8");

  SECTION("eager is never padded; above the largest size a graph count stays; a repeated count is one") {
    const std::vector<MeasuredCount> graph_only =
        measured_counts({9, 3, 3, 600}, {TimingMode::graph}, vllm_graph_capture_sizes());
    REQUIRE(graph_only.size() == 3);
    CHECK(graph_only[0].tokens == 16);
    CHECK(graph_only[1].tokens == 4);
    CHECK(requests_of(graph_only[1], TimingMode::graph) == Requests{{3, 4, false}});
    CHECK(graph_only[2].tokens == 600);
    CHECK(requests_of(graph_only[2], TimingMode::graph) == Requests{{600, 600, true}});
    CHECK(
        describe_graph_padding(graph_only, vllm_graph_capture_sizes()) ==
        "3 -> 4, 9 -> 16; 600 above the largest capture size 512: not padded (vLLM runs such a batch eagerly)");
    const std::vector<MeasuredCount> eager_only = measured_counts({3, 600}, {TimingMode::eager}, {1, 2, 4});
    REQUIRE(eager_only.size() == 2);
    CHECK(eager_only[0].tokens == 3);
    CHECK(eager_only[1].tokens == 600);
    CHECK(describe_graph_padding(eager_only, {1, 2, 4}).empty());
  }
  SECTION("counts that are capture sizes already: one entry per count, both modes on it") {
    const std::vector<MeasuredCount> exact =
        measured_counts({1, 8, 16}, {TimingMode::eager, TimingMode::graph}, vllm_graph_capture_sizes());
    REQUIRE(exact.size() == 3);
    for (const MeasuredCount& count : exact) CHECK(count.modes.size() == 2);
    CHECK(describe_graph_padding(exact, vllm_graph_capture_sizes()).empty());
  }
}

TEST_CASE("a padded result carries both counts through report.json, older reports asked what they measured",
          "[graph_padding][report]") {
  const PhaseResult padded = graph_result(3, 4, 1000.0);
  CHECK(padded.tokens == 4);
  CHECK(padded.requested_tokens == 3);
  CHECK(padded.bytes_per_op == 4 * 14336u);  // the padded count's bytes
  const nlohmann::json j = padded;
  CHECK(j["tokens"] == 4);
  CHECK(j["requested_tokens"] == 3);
  CHECK(j["above_graph_sizes"] == false);
  CHECK(j.get<PhaseResult>().requested_tokens == 3);

  // results.csv: both columns, by report.json's names.
  RunReport report = empty_report();
  report.results = {padded};
  std::istringstream csv(results_csv(report));
  std::string header, row;
  std::getline(csv, header);
  std::getline(csv, row);
  const auto column = [](const std::string& line, const std::string& name, const std::string& head) {
    std::vector<std::string> names, cells;
    std::istringstream h(head), l(line);
    for (std::string cell; std::getline(h, cell, ',');) names.push_back(cell);
    for (std::string cell; std::getline(l, cell, ',');) cells.push_back(cell);
    const auto at = std::find(names.begin(), names.end(), name) - names.begin();
    return static_cast<std::size_t>(at) < cells.size() ? cells[static_cast<std::size_t>(at)]
                                                       : std::string("?");
  };
  CHECK(column(row, "tokens", header) == "4");
  CHECK(column(row, "requested_tokens", header) == "3");

  const PhaseResult above = graph_result(600, 600, 1000.0);
  CHECK(nlohmann::json(above)["above_graph_sizes"] == true);
  CHECK(nlohmann::json(above).get<PhaseResult>().above_graph_sizes);

  const nlohmann::json eager = allreduce_result(3, TimingMode::eager, 100.0);
  CHECK_FALSE(eager.contains("above_graph_sizes"));
  nlohmann::json older = eager;
  older.erase("requested_tokens");
  CHECK(older.get<PhaseResult>().requested_tokens == 3);
}

TEST_CASE("the console, report.md and the headline show the count asked and the count measured",
          "[graph_padding][report]") {
  RunReport report = empty_report();
  report.results = {allreduce_result(4, TimingMode::eager, 500.0), graph_result(3, 4, 400.0),
                    graph_result(4, 4, 400.0), graph_result(600, 600, 9000.0)};

  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* stream = open_memstream(&buffer, &size);
  {
    const ConsoleTable table(stream);
    for (const PhaseResult& r : report.results) table.print_row(r);
  }
  std::fclose(stream);
  const std::string console(buffer, size);
  std::free(buffer);
  std::istringstream lines(console);
  std::vector<std::string> tokens_column;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string phase, tokens;
    fields >> phase >> tokens;
    tokens_column.push_back(tokens);
  }
  CHECK(tokens_column == std::vector<std::string>{"4", "3->4", "4", "600"});

  const std::string md = render_markdown(report);
  CHECK(md.find("| 3 (padded to 4) | graph |") != std::string::npos);
  CHECK(md.find("| 4 | graph |") != std::string::npos);
  CHECK(md.find("| 600 (above graph sizes) | graph |") != std::string::npos);
  CHECK(md.find("rows padded to the same size share one measurement") != std::string::npos);

  const std::vector<std::string> headline = headline_sentences(report.results, {});
  REQUIRE(headline.size() == 3);
  CHECK(headline[0].rfind("T=3: ", 0) == 0);
  CHECK(headline[0].find("graph, padded to 4 tokens") != std::string::npos);
  CHECK(headline[1].rfind("T=4: ", 0) == 0);
  CHECK(headline[1].find("(122 ops, graph)") != std::string::npos);
}

TEST_CASE("a fit counts a measurement shared by padded counts once", "[graph_padding][fit]") {
  const std::vector<PhaseResult> results = {graph_result(3, 4, 400.0), graph_result(4, 4, 400.0),
                                            graph_result(16, 16, 800.0), graph_result(64, 64, 2000.0)};
  const std::vector<LatencyFit> fits = fit_latency_models(results);
  REQUIRE(fits.size() == 1);
  CHECK(fits[0].points == 3);
  CHECK(fits[0].min_tokens == 4);
}

TEST_CASE("compare matches on the count asked, a change of padding is not comparable unless allowed",
          "[graph_padding][compare]") {
  RunReport base = empty_report(), next = empty_report();
  base.results = {graph_result(3, 4, 400.0), allreduce_result(3, TimingMode::eager, 500.0)};
  // The new run captured size 3 as well: its 3 tokens were measured at 3.
  next.results = {graph_result(3, 3, 380.0), allreduce_result(3, TimingMode::eager, 500.0)};
  next.results[0].requested_tokens = 3;
  try {
    compare_reports(base, next, CompareRules{});
    FAIL("no error");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()).find(
              "padded_tokens differs (base 4, new 3) at 1 point: allreduce T=3 graph") != std::string::npos);
  }
  CompareRules allowed;
  allowed.allow_mismatch = {"padded_tokens", "bytes"};
  const Comparison c = compare_reports(base, next, allowed);
  CHECK(c.figures.size() == 2);
  CHECK(c.figures[0].point == "allreduce T=3 eager");
  CHECK(c.figures[1].point == "allreduce T=3 graph");
  CHECK(c.figures[1].base == 400.0);
  CHECK(c.figures[1].next == 380.0);

  SECTION("the same padding on both sides compares as before") {
    RunReport same = base;
    same.results[0].step_us.p50 = 410.0;
    const Comparison ok = compare_reports(base, same, CompareRules{});
    CHECK(ok.figures.size() == 2);
    CHECK_FALSE(ok.failed());
  }
}
