// Reading reports back: report.json, complete and truncated journals, merging a serve report, re-rendering.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "../analysis/report_fixtures.hpp"
#include "../analysis/temp_dir.hpp"
#include "analysis/analyze.hpp"
#include "analysis/report_reader.hpp"
#include "common/error.hpp"
#include "report/markdown_report.hpp"
#include "report/rerender.hpp"

using namespace k25;
using namespace k25::test;

namespace {

// The journal the lead's writer produces for `report`, one JSON object per line.
std::string journal_of(const RunReport& r, bool with_end) {
  std::string text;
  text += nlohmann::json{{"type", "run_start"},
                         {"schema_version", kReportSchemaVersion},
                         {"tool", r.tool},
                         {"run", r.run},
                         {"topology", r.topology}}
              .dump() +
          "\n";
  for (const PhaseResult& p : r.results)
    text += nlohmann::json{{"type", "result"}, {"result", p}}.dump() + "\n";
  if (!r.serve.levels.empty()) {
    ServeReport start = r.serve;
    start.levels.clear();
    text += nlohmann::json{{"type", "serve_start"}, {"serve", start}}.dump() + "\n";
    for (const ServeLevel& l : r.serve.levels)
      text += nlohmann::json{{"type", "serve_level"}, {"level", l}}.dump() + "\n";
  }
  if (with_end) {
    text += nlohmann::json{{"type", "run_end"},
                           {"finished_at", "2025-01-01T00:10:00Z"},
                           {"complete", true},
                           {"notes", {"one note at the end"}}}
                .dump() +
            "\n";
  }
  return text;
}

RunReport sample_report() {
  RunReport r = empty_report();
  r.results = {allreduce_result(1, TimingMode::eager, 6810.0), allreduce_result(4, TimingMode::eager, 8000.0),
               allreduce_result(16, TimingMode::eager, 11000.0)};
  r.serve.ran = true;
  r.serve.endpoint = "http://127.0.0.1:8000";
  r.serve.levels = {serve_level(1, 12.4, 79.0), serve_level(2, 13.0, 150.0)};
  return r;
}

}  // namespace

TEST_CASE("a report.json reads back to the same report", "[report_reader]") {
  TempDir dir;
  RunReport original = sample_report();
  analyze_report(original);
  REQUIRE(!original.attribution.empty());
  const RunReport back = read_report_file(dir.write("report.json", nlohmann::json(original).dump(2)));
  CHECK(nlohmann::json(back) == nlohmann::json(original));
}

TEST_CASE("a complete journal reads as a complete report", "[report_reader]") {
  TempDir dir;
  const RunReport back = read_report_file(dir.write("journal.jsonl", journal_of(sample_report(), true)));
  CHECK(back.run.complete);
  CHECK(back.results.size() == 3);
  CHECK(back.serve.levels.size() == 2);
  CHECK(back.serve.ran);
  CHECK(back.serve.endpoint == "http://127.0.0.1:8000");
  CHECK(back.run.finished_at == "2025-01-01T00:10:00Z");
  CHECK(back.run.notes == std::vector<std::string>{"one note at the end"});
}

TEST_CASE("a crashed run's journal with a truncated last line is read up to it and marked",
          "[report_reader]") {
  TempDir dir;
  std::string journal = journal_of(sample_report(), false);
  const std::string half_line =
      nlohmann::json{{"type", "result"}, {"result", allreduce_result(64, TimingMode::eager, 2e4)}}.dump();
  journal += half_line.substr(0, half_line.size() / 2);  // the crash hit mid-write

  const RunReport back = read_report_file(dir.write("journal.jsonl", journal));
  CHECK_FALSE(back.run.complete);
  CHECK(back.run.incomplete_reason == "journal ends without run_end (the run did not finish)");
  CHECK(back.results.size() == 3);
  REQUIRE(back.run.notes.size() == 1);
  CHECK(back.run.notes[0].find("truncated") != std::string::npos);
}

TEST_CASE("a broken line in the middle of a journal is an error naming the line", "[report_reader]") {
  TempDir dir;
  std::string journal = journal_of(sample_report(), true);
  journal.insert(journal.find('\n') + 1, "{not json\n");
  const std::string path = dir.write("journal.jsonl", journal);
  CHECK_THROWS_AS(read_report_file(path), UsageError);
  CHECK_THROWS_WITH(read_report_file(path), Catch::Contains("line 2"));
  CHECK_THROWS_WITH(read_report_file(dir.write("empty.json", "")), Catch::Contains("empty"));
  CHECK_THROWS_WITH(read_report_file(dir.write("other.jsonl", "{\"type\":\"result\"}\n")),
                    Catch::Contains("run_start"));
}

TEST_CASE("the report is re-rendered from a truncated journal", "[report_reader][rerender]") {
  TempDir dir;
  std::string journal = journal_of(sample_report(), false);
  journal += "{\"type\":\"serve_level\",\"level\":{\"concurr";
  const std::string journal_path = dir.write("journal.jsonl", journal);

  RerenderOptions options;
  options.input_path = journal_path;
  options.plot_script = (dir.path() / "no-such-plot-script").string();  // plots are not this test's concern
  std::ostringstream out;
  CHECK(run_report_command(options, out) == 0);
  CHECK(out.str().find("incomplete run") != std::string::npos);

  const RunReport rendered = read_report_file((dir.path() / "report.json").string());
  CHECK_FALSE(rendered.run.complete);
  CHECK(rendered.results.size() == 3);
  REQUIRE(rendered.attribution.size() == 2);  // analysis ran: C=1 and C=2
  CHECK(nlohmann::json(rendered.attribution)[0]["share"]["allreduce_eager"].get<double>() ==
        Approx(6.81 / 12.4));
  REQUIRE(rendered.fits.size() == 1);
  REQUIRE(rendered.results[0].link_fraction.has_value());

  const std::string md = read_text((dir.path() / "report.md").string());
  CHECK(md.find("**Incomplete run**: journal ends without run_end") != std::string::npos);
  CHECK(md.find("### allreduce") != std::string::npos);
  CHECK(md.find("## Decode-time attribution") != std::string::npos);
  CHECK(md.find("6.810 (55 %)") != std::string::npos);
  CHECK(md.find("## Latency model") != std::string::npos);
  CHECK(md.find("truncated") != std::string::npos);
}

TEST_CASE("attribution from two files: a comm report plus a serve report of the same model",
          "[report_reader]") {
  RunReport comm = sample_report();
  comm.serve = ServeReport{};
  comm.serve.skipped_reason = "no endpoint configured";
  RunReport serve = empty_report();
  serve.serve = sample_report().serve;

  RunReport merged = merge_serve_report(comm, serve);
  analyze_report(merged);
  CHECK(merged.serve.levels.size() == 2);
  CHECK(merged.attribution.size() == 2);

  RunReport other_model = serve;
  other_model.run.config["model"]["name"] = "glm-4.5";
  CHECK_THROWS_AS(merge_serve_report(comm, other_model), UsageError);
  CHECK_THROWS_AS(merge_serve_report(comm, comm), UsageError);  // no serve levels
}

TEST_CASE("report.md states the system facts and links the plots that exist", "[report_reader]") {
  RunReport r = sample_report();
  r.run.mpi_version = "Open MPI v4.1.4";
  r.run.compiler = "GNU 12.2.0";
  r.run.env = {{"NCCL_DEBUG", "WARN"}};
  r.run.notes = {"one-rank NCCL measures launch cost"};
  analyze_report(r);
  TempDir dir;
  dir.write("burst_vs_tokens.png", "png");
  dir.write("trace.json", "{}");
  const std::string md = render_markdown(r, existing_artifacts(dir.path().string()));
  CHECK(md.find("Open MPI v4.1.4") != std::string::npos);
  CHECK(md.find("GNU 12.2.0") != std::string::npos);
  CHECK(md.find("NCCL_DEBUG") != std::string::npos);
  CHECK(md.find("node-a") != std::string::npos);
  CHECK(md.find("one-rank NCCL measures launch cost") != std::string::npos);
  CHECK(md.find("](burst_vs_tokens.png)") != std::string::npos);
  CHECK(md.find("attribution.png") == std::string::npos);  // not there, not linked
  CHECK(md.find("[trace.json](trace.json)") != std::string::npos);
  CHECK(md.find("| 1 | eager | 14,336 |") != std::string::npos);
}

TEST_CASE("host-transport reports analyze, render and compare like GPU ones", "[report_reader][host]") {
  RunReport host = empty_report("kimi-k2.5", "host");
  host.run.ranks = 4;
  host.results = {allreduce_result(1, TimingMode::eager, 3000.0),
                  allreduce_result(8, TimingMode::eager, 4000.0)};
  host.serve.skipped_reason = "no endpoint configured";
  analyze_report(host);
  CHECK_FALSE(host.results[0].link_fraction.has_value());  // no link limit on host memory
  CHECK(host.attribution.empty());
  REQUIRE(host.fits.size() == 1);

  const std::string md = render_markdown(host);
  CHECK(md.find("host, 4 ranks, mpi") != std::string::npos);
  CHECK(md.find("Host transport") != std::string::npos);
  CHECK(md.find("no endpoint configured") != std::string::npos);
  CHECK(md.find("No attribution") != std::string::npos);

  TempDir dir;
  const RunReport back = read_report_file(dir.write("report.json", nlohmann::json(host).dump()));
  CHECK(back.fits.size() == 1);
}

TEST_CASE("a schema_version 1 report is read into the current version's form, and a later version is refused",
          "[report_reader]") {
  RunReport old = sample_report();
  ServeLevel failed;
  failed.concurrency = 4;
  failed.requests = 6;
  failed.failed = 6;
  failed.errors = {{"http_5xx", 6}};
  old.serve.levels.push_back(failed);
  nlohmann::json j = old;
  j["schema_version"] = 1;
  for (const char* key : {"ttft_ms", "tpot_ms", "itl_ms", "e2el_ms"})  // version 1 wrote zeros
    j["serve"]["levels"][2][key] = {{"min", 0}, {"p50", 0}, {"p90", 0}, {"p99", 0}, {"max", 0}, {"mean", 0}};
  j["serve"]["levels"][2].erase("vllm_bench_serve");
  TempDir dir;
  const RunReport back = read_report_file(dir.write("v1.json", j.dump()));
  CHECK(back.schema_version == 4);
  REQUIRE(back.serve.levels.size() == 3);
  CHECK_FALSE(back.serve.levels[2].tpot_ms.has_value());
  CHECK(back.serve.levels[2].vllm_bench_serve.empty());
  CHECK(back.serve.levels[0].tpot_ms->p50 == Approx(12.4));

  CHECK_FALSE(back.live_profile.present);  // no --profile before version 3

  CHECK(back.results.front().backend == "nccl");  // no backend before version 4: the transport's own

  j["schema_version"] = 5;
  CHECK_THROWS_WITH(read_report_file(dir.write("v5.json", j.dump())),
                    Catch::Contains("schema_version 5 is not supported (this build reads versions 1 to 4)"));
}

TEST_CASE("a multi-host report keeps its hosts and node-local ranks through report.json and report.md",
          "[report_reader][host]") {
  RunReport r = empty_report("kimi-k2.5", "host");
  r.run.ranks = 4;
  r.run.hosts = {"node-a", "node-a", "node-b", "node-b"};
  r.topology.hosts = {{"node-a", {0, 1}, "host", "host memory"}, {"node-b", {3, 2}, "host", "host memory"}};
  TempDir dir;
  const RunReport back = read_report_file(dir.write("report.json", nlohmann::json(r).dump()));
  REQUIRE(back.topology.hosts.size() == 2);
  CHECK(back.topology.hosts[1].name == "node-b");
  CHECK(back.topology.hosts[1].ranks == std::vector<int>{3, 2});
  CHECK(nlohmann::json(back.topology) == nlohmann::json(r.topology));
  const std::string md = render_markdown(back);
  CHECK(md.find("| node-a | 0, 1 | host: host memory |") != std::string::npos);
  CHECK(md.find("| node-b | 3, 2 | host: host memory |") != std::string::npos);

  nlohmann::json bad = nlohmann::json(r);
  bad["topology"]["hosts"][0]["ranks"] = {0, "one"};
  CHECK_THROWS(read_report_file(dir.write("bad.json", bad.dump())));
}
