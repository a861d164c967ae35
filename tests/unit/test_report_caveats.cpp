// What a report must tell its reader: shares above TPOT, failed serve requests, oversubscribed hosts, a
// skipped serve phase that a merge later filled, few trials, what "tokens" means, throughput windows, Poisson
// arrivals, and the headline.
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>

#include "../analysis/report_fixtures.hpp"
#include "analysis/analyze.hpp"
#include "analysis/headline.hpp"
#include "analysis/report_notes.hpp"
#include "analysis/report_reader.hpp"
#include "report/markdown_report.hpp"

using namespace k25;
using namespace k25::test;

namespace {

RunReport with_serve(std::vector<ServeLevel> levels) {
  RunReport r = empty_report();
  r.results = {allreduce_result(1, TimingMode::eager, 6810.0),
               allreduce_result(16, TimingMode::eager, 9000.0)};
  r.serve.ran = true;
  r.serve.levels = std::move(levels);
  return r;
}

}  // namespace

TEST_CASE("attribution shares above 100 % of TPOT are flagged in report.json, run.notes and report.md",
          "[caveats]") {
  // AllReduce burst of 33.6 ms against a TPOT of 12.4 ms: 271 %.
  RunReport r = with_serve({serve_level(1, 12.4, 79.0)});
  r.results[0] = allreduce_result(1, TimingMode::eager, 33604.0);
  analyze_report(r);
  REQUIRE(r.attribution.size() == 1);
  CHECK(nlohmann::json(r.attribution)[0]["exceeds_tpot"] == nlohmann::json::array({"allreduce_eager"}));
  CHECK(has_note_starting(r,
                          "attribution: communication above 100 % of TPOT: allreduce_eager at C=1 is 271 %"));
  const std::string md = render_markdown(r);
  CHECK(md.find("(271 % **above TPOT**)") != std::string::npos);
  CHECK(md.find("**Shares above 100 %**") != std::string::npos);

  // Below 100 % nothing is flagged, and a re-analysis drops the note the data no longer supports.
  r.results[0] = allreduce_result(1, TimingMode::eager, 6810.0);
  analyze_report(r);
  CHECK(nlohmann::json(r.attribution)[0]["exceeds_tpot"].empty());
  CHECK_FALSE(has_note_starting(r, "attribution:"));
  CHECK(render_markdown(r).find("above TPOT") == std::string::npos);
}

TEST_CASE("serve levels with failed requests are noted, levels without completions are named", "[caveats]") {
  ServeLevel partial = serve_level(2, 13.0, 150.0);
  partial.requests = 12;
  partial.completed = 8;
  partial.failed = 4;
  partial.errors = {{"http_5xx", 4}};
  partial.error_examples = {{"http_5xx", "HTTP 500: injected server failure"}};
  ServeLevel none;
  none.concurrency = 4;
  none.requests = 6;
  none.failed = 6;
  none.errors = {{"http_5xx", 6}};
  RunReport r = with_serve({serve_level(1, 12.4, 79.0), partial, none});
  analyze_report(r);
  CHECK(
      std::count(
          r.run.notes.begin(), r.run.notes.end(),
          "serve C=2: 4 of 12 requests failed (http_5xx 4 (HTTP 500: injected server failure)): its figures are over the 8 that completed") ==
      1);
  CHECK(has_note_starting(r, "serve C=4: none of 6 requests completed (http_5xx 6)"));
  CHECK_FALSE(has_note_starting(r, "serve C=1"));
  CHECK(describe_failed_levels(r.serve) == "concurrency 4: 0 of 6 requests completed (http_5xx 6)");
  REQUIRE(levels_without_completions(r.serve).size() == 1);
  CHECK(r.attribution.size() == 2);  // the level without completions has no TPOT to attribute

  analyze_report(r);  // idempotent
  CHECK(std::count_if(r.run.notes.begin(), r.run.notes.end(),
                      [](const std::string& n) { return n.rfind("serve C=", 0) == 0; }) == 2);
  const std::string md = render_markdown(r);
  CHECK(md.find("- serve C=2: 4 of 12 requests failed") != std::string::npos);
  CHECK(md.find("| 4 | 6 | 0 | 6 | - | - | - | - | - | - | - |") != std::string::npos);
}

TEST_CASE("a merged report never says the serve phase was skipped", "[caveats]") {
  RunReport comm = with_serve({});
  comm.serve = ServeReport{};
  comm.serve.skipped_reason = "no endpoint configured (serve.endpoint or --endpoint)";
  analyze_report(comm);
  CHECK(has_note_starting(comm, "serve phase skipped: "));

  RunReport serve = empty_report();
  serve.serve.ran = true;
  serve.serve.levels = {serve_level(1, 12.4, 79.0)};
  RunReport merged = merge_serve_report(comm, serve);
  analyze_report(merged);
  CHECK(merged.serve.ran);
  CHECK_FALSE(has_note_starting(merged, "serve phase skipped"));
  CHECK(has_note_starting(merged, "serve results from a separate run"));
  CHECK(render_markdown(merged).find("skipped") == std::string::npos);
}

TEST_CASE("more ranks than cores on a host is noted as oversubscribed", "[caveats]") {
  RunReport r = empty_report("kimi-k2.5", "host");
  r.run.ranks = 4;
  r.run.hosts = {"a", "a", "a", "b"};
  r.run.host_cores = {{"a", 2}, {"b", 16}};
  analyze_report(r);
  CHECK(
      std::count(
          r.run.notes.begin(), r.run.notes.end(),
          "oversubscribed: a runs 3 ranks on 2 cores: ranks share cores, so the host transport's times include the scheduler's time slicing, not only communication") ==
      1);
  CHECK_FALSE(has_note_starting(r, "oversubscribed: b"));
  r.run.host_cores["a"] = 4;
  analyze_report(r);
  CHECK_FALSE(has_note_starting(r, "oversubscribed"));
}

TEST_CASE("report.md names trials, what tokens means, the throughput window and Poisson arrivals",
          "[caveats]") {
  RunReport r = with_serve({serve_level(1, 12.4, 79.0)});
  r.results.push_back(alltoall_result(Phase::dispatch, 1, TimingMode::eager, 600.0));
  r.results[0].iterations = 4;
  r.serve.levels[0].window_kind = "level_span";
  r.serve.request_rate = 2.5;
  analyze_report(r);
  const std::string md = render_markdown(r);
  CHECK(md.find("| tokens/step | mode | bytes/op | ops/step | trials |") != std::string::npos);
  CHECK(md.find("| tokens/rank | mode | bytes/rank mean (max) |") != std::string::npos);
  CHECK(md.find("| 1 | eager | 14,336 | 122 | 4 |") != std::string::npos);
  CHECK(md.find("as few as 4 trials: their p99") != std::string::npos);
  CHECK(md.find("`level_span`") != std::string::npos);
  CHECK(md.find("Poisson process at 2.5 per second") != std::string::npos);

  r.results[0].iterations = 500;
  r.results[1].iterations = 500;
  r.results[2].iterations = 500;
  r.serve.levels[0].window_kind = "steady";
  r.serve.request_rate = 0;
  const std::string plain = render_markdown(r);
  CHECK(plain.find("as few as") == std::string::npos);
  CHECK(plain.find("`level_span`") == std::string::npos);
  CHECK(plain.find("Poisson") == std::string::npos);
}

TEST_CASE("the headline: one sentence per concurrency, or the step's communication per token count",
          "[caveats]") {
  RunReport r = with_serve({serve_level(1, 12.4, 79.0)});
  r.results.push_back(alltoall_result(Phase::dispatch, 1, TimingMode::eager, 600.0));
  r.results.push_back(alltoall_result(Phase::combine, 1, TimingMode::eager, 890.0));
  analyze_report(r);
  REQUIRE(r.headline.size() == 1);
  CHECK(
      r.headline[0] ==
      "AllReduce burst = 54.9 % of TPOT at C=1 (6.81 ms of 12.4 ms, eager), All-to-All = 12.0 % (1.49 ms dispatch + combine at 1 token per rank, eager)");
  CHECK(render_markdown(r).find("## Headline\n\n- AllReduce burst = 54.9 % of TPOT at C=1") !=
        std::string::npos);

  // Graph mode, where measured, is the one vLLM's decode runs.
  r.results.push_back(allreduce_result(1, TimingMode::graph, 1240.0));
  analyze_report(r);
  CHECK(r.headline[0].rfind("AllReduce burst = 10.0 % of TPOT at C=1 (1.24 ms of 12.4 ms, graph)", 0) == 0);

  // Without serve results: one headline over the measured token counts (issue 31 item 7), and the
  // communication of one step at each count on lines of their own.
  RunReport comm = empty_report();
  comm.results = {allreduce_result(1, TimingMode::eager, 6810.0),
                  allreduce_result(16, TimingMode::eager, 9000.0)};
  analyze_report(comm);
  REQUIRE(comm.headline.size() == 1);
  CHECK(
      comm.headline[0] ==
      "AllReduce burst per decode step 6.81 ms at T=1 to 9.00 ms at T=16 (122 ops, eager); 2 token counts, one "
      "line each");
  const std::vector<std::string> lines = per_token_count_lines(comm);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "T=1: AllReduce burst 6.81 ms per decode step of 1 token (122 ops, eager)");
  CHECK(lines[1] == "T=16: AllReduce burst 9.00 ms per decode step of 16 tokens (122 ops, eager)");
  CHECK(render_markdown(comm).find(
            "## Headline\n\n- AllReduce burst per decode step 6.81 ms at T=1 to 9.00 ms at "
            "T=16 (122 ops, eager); 2 token counts, one line each\n\nPer token count:\n\n- "
            "T=1: AllReduce burst 6.81 ms") != std::string::npos);
  // With the All-to-All too; one token count: its sentence, no lines beside it.
  comm.results.push_back(alltoall_result(Phase::dispatch, 1, TimingMode::eager, 600.0));
  comm.results.push_back(alltoall_result(Phase::combine, 1, TimingMode::eager, 890.0));
  comm.results.push_back(alltoall_result(Phase::dispatch, 16, TimingMode::eager, 900.0));
  comm.results.push_back(alltoall_result(Phase::combine, 16, TimingMode::eager, 1200.0));
  analyze_report(comm);
  CHECK(
      comm.headline[0] ==
      "AllReduce burst per decode step 6.81 ms at T=1 to 9.00 ms at T=16 (122 ops, eager), All-to-All 1.49 ms at "
      "1 token per rank to 2.10 ms at 16 tokens per rank (dispatch + combine, eager); 2 token counts, one line "
      "each");
  RunReport one = empty_report();
  one.results = {allreduce_result(1, TimingMode::eager, 6810.0)};
  analyze_report(one);
  CHECK(one.headline ==
        std::vector<std::string>{"T=1: AllReduce burst 6.81 ms per decode step of 1 token (122 ops, eager)"});
  CHECK(per_token_count_lines(one).empty());
}

namespace {

// A report as report.json holds it, with `notes` and, where given, `derived_notes` in its run.
std::string report_text(const std::vector<std::string>& notes,
                        const std::optional<std::vector<std::string>>& derived_notes) {
  RunReport r = with_serve({serve_level(1, 12.4, 79.0)});
  nlohmann::json j = r;
  j["run"]["notes"] = notes;
  if (derived_notes)
    j["run"]["derived_notes"] = *derived_notes;
  else
    j["run"].erase("derived_notes");
  return j.dump();
}

}  // namespace

TEST_CASE("recorded and derived notes are told apart by run.derived_notes, not by their wording",
          "[caveats]") {
  // A derived note in any wording goes on a re-read (its data no longer supports it); a recorded note that
  // happens to begin as a derived one did stays.
  const RunReport reread = parse_report_text(
      report_text(
          {"serve C=7: recorded by the run, whatever it looks like", "a derived note, reworded since"},
          std::vector<std::string>{"a derived note, reworded since"}),
      "report.json");
  CHECK(reread.run.notes ==
        std::vector<std::string>{"serve C=7: recorded by the run, whatever it looks like"});
  CHECK(reread.run.derived_notes.empty());
  CHECK(nlohmann::json(reread.run)["derived_notes"] == nlohmann::json::array());

  // What the data supports is derived again, and listed as derived.
  RunReport oversubscribed = reread;
  oversubscribed.run.hosts = {"a", "a", "a"};
  oversubscribed.run.host_cores = {{"a", 2}};
  analyze_report(oversubscribed);
  REQUIRE(oversubscribed.run.derived_notes.size() == 1);
  CHECK(oversubscribed.run.notes.back() == oversubscribed.run.derived_notes.front());
  CHECK(oversubscribed.run.notes.front() == "serve C=7: recorded by the run, whatever it looks like");
  // ... and survives a round trip through report.json as derived, so the next re-read drops it.
  const RunReport again = parse_report_text(nlohmann::json(oversubscribed).dump(), "report.json");
  CHECK(again.run.derived_notes == oversubscribed.run.derived_notes);
  CHECK(again.run.notes == oversubscribed.run.notes);
}

TEST_CASE("reports written before run.derived_notes read as they did: derived notes by their old wording",
          "[caveats]") {
  // schema 2 reports of k25comm 0.1.0: no derived_notes; the derived notes began with these words then.
  const std::vector<std::string> old_notes = {
      "one rank: NCCL measures launch and copy cost",
      "serve phase skipped: no endpoint configured (serve.endpoint or --endpoint)",
      "oversubscribed: vm runs 8 ranks on 2 cores: ranks share cores, so the host transport's times include the scheduler's time slicing, not only communication",
      "serve C=2: 3 of 9 requests failed (http_5xx 3 (HTTP 500: injected server failure)): its figures are over the 6 that completed",
      "attribution: communication above 100 % of TPOT: allreduce_eager at C=1 is 271 % (33.6 ms of 12.4 ms)."};
  const RunReport old = parse_report_text(report_text(old_notes, std::nullopt), "old-report.json");
  CHECK(old.run.notes == std::vector<std::string>{"one rank: NCCL measures launch and copy cost"});

  // The same from a journal whose run_end line has no derived_notes.
  nlohmann::json start = nlohmann::json::parse(report_text({}, std::nullopt));
  start["type"] = "run_start";
  start["run"].erase("notes");
  const nlohmann::json end = {{"type", "run_end"}, {"complete", true}, {"notes", old_notes}};
  const RunReport journal = parse_report_text(start.dump() + "\n" + end.dump() + "\n", "journal.jsonl");
  CHECK(journal.run.notes == std::vector<std::string>{"one rank: NCCL measures launch and copy cost"});

  // A merge of an old comm report with a serve report: the skipped-serve note does not survive.
  RunReport serve = empty_report();
  serve.serve.ran = true;
  serve.serve.levels = {serve_level(1, 12.4, 79.0)};
  RunReport merged = merge_serve_report(old, serve);
  analyze_report(merged);
  CHECK_FALSE(has_note_starting(merged, "serve phase skipped"));
  CHECK(has_note_starting(merged, "one rank: NCCL"));
}

TEST_CASE("report.md prints counts as integers and names the two output throughputs apart", "[caveats]") {
  ServeLevel level = serve_level(8, 12.4, 79.0);
  level.completed = 8;
  level.vllm_bench_serve = {{"completed", 8.0},
                            {"duration", 3.25},
                            {"total_input_tokens", 1280.0},
                            {"total_output_tokens", 512.0},
                            {"output_throughput", 157.5},
                            {"mean_tpot_ms", 12.4}};
  RunReport r = with_serve({level});
  analyze_report(r);
  const std::string md = render_markdown(r);
  CHECK(md.find("| Successful requests | 8 |") != std::string::npos);
  CHECK(md.find("| Total input tokens | 1,280 |") != std::string::npos);
  CHECK(md.find("| Total generated tokens | 512 |") != std::string::npos);
  CHECK(md.find("| Benchmark duration (s) | 3.250 |") != std::string::npos);
  CHECK(md.find("| Output token throughput, whole level (tok/s) | 157.5 |") != std::string::npos);
  CHECK(md.find("| steady output tok/s |") != std::string::npos);
  CHECK(md.find("| output tok/s |") == std::string::npos);
}
