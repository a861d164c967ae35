// What users read: error lines without source paths (unless --verbose), errors raised on every rank printed
// once, counts with the right noun, CSV files whose columns are named as in report.json, and the console's
// serve line with every percentile asked for.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../analysis/report_fixtures.hpp"
#include "app/error_exit.hpp"
#include "common/count_noun.hpp"
#include "common/csv_table.hpp"
#include "common/error.hpp"
#include "report/console_table.hpp"
#include "report/report_files.hpp"

using namespace k25;
using namespace k25::test;

TEST_CASE("a user error names no source path unless --verbose, internal errors say so", "[messages]") {
  const RuntimeFault fault("cannot create output directory '/proc/x': Permission denied", "mkdir",
                           "/tmp/fresh/src/report/atomic_file.cpp", 64);
  CHECK(std::string(fault.what()).find("atomic_file.cpp") == std::string::npos);
  CHECK(fault.location() == "/tmp/fresh/src/report/atomic_file.cpp:64");
  CHECK(error_message(fault, false) ==
        "k25comm: error: cannot create output directory '/proc/x': Permission denied [call: mkdir]");
  CHECK(
      error_message(fault, true) ==
      "k25comm: error: cannot create output directory '/proc/x': Permission denied [call: mkdir] [at /tmp/fresh/src/report/atomic_file.cpp:64]");
  CHECK(error_message(UsageError("--tokens: bad"), true) == "k25comm: error: --tokens: bad");
  CHECK(error_message(std::logic_error("vector::at"), false) == "k25comm: internal error: vector::at");
}

TEST_CASE("an error raised identically on every rank is printed by rank 0 alone and ends the job cleanly",
          "[messages]") {
  const RuntimeFault everywhere =
      on_every_rank(RuntimeFault("--backend nccl: no CUDA device is visible on node-a"));
  CHECK(everywhere.raised_on_every_rank());
  CHECK(everywhere.code() == ExitCode::runtime_fault);  // the type (and exit code) survives the marking

  const ErrorExit on_rank0 = measurement_error_exit(everywhere, true);
  CHECK(on_rank0.print);
  CHECK_FALSE(on_rank0.abort_job);
  CHECK(on_rank0.code == 3);
  const ErrorExit on_rank1 = measurement_error_exit(everywhere, false);
  CHECK_FALSE(on_rank1.print);
  CHECK_FALSE(on_rank1.abort_job);
  CHECK(on_rank1.code == 3);

  // A fault on one rank only: printed where it happened, and the job is aborted (peers may wait).
  const ErrorExit local = measurement_error_exit(RuntimeFault("a peer died"), false);
  CHECK(local.print);
  CHECK(local.abort_job);
  // Bad usage is the same on every rank by nature.
  CHECK_FALSE(measurement_error_exit(UsageError("--modes graph: nothing to measure"), false).print);
}

TEST_CASE("counts carry their noun in the right number", "[messages]") {
  CHECK(count_noun(1, "rank") == "1 rank");
  CHECK(count_noun(8, "rank") == "8 ranks");
  CHECK(count_noun(0, "point") == "0 points");
  CHECK(count_noun(2, "entry", "entries") == "2 entries");
}

TEST_CASE("CSV fields are quoted where needed and columns follow report.json's names", "[messages][csv]") {
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("two\nlines") == "\"two\nlines\"");
  const std::string csv = csv_of_records(
      {{{"name", "x"}, {"stats", {{"p50", 1.5}}}, {"missing", nullptr}}, {{"name", "y"}, {"extra", true}}},
      {"name"});
  CHECK(csv == "name,missing,stats.p50,extra\nx,,1.5,\ny,,,true\n");

  RunReport r = empty_report();
  r.results = {allreduce_result(1, TimingMode::eager, 6810.0),
               alltoall_result(Phase::dispatch, 4, TimingMode::graph, 600.0)};
  ServeLevel failed;
  failed.concurrency = 2;
  failed.requests = 3;
  failed.failed = 3;
  failed.errors = {{"http_5xx", 3}};
  r.serve.levels = {serve_level(1, 12.4, 79.0), failed};
  const std::string results = results_csv(r);
  CHECK(results.rfind("phase,backend,tokens,mode,dtype,ranks,", 0) == 0);
  CHECK(results.find("step_us.p50") != std::string::npos);
  CHECK(results.find("bytes_per_rank.mean") != std::string::npos);
  CHECK(results.find("\nallreduce,,1,eager,bf16,8,") != std::string::npos);  // the fixture names no backend
  CHECK(results.find("\ndispatch,,4,graph,bf16,8,") != std::string::npos);
  CHECK(std::count(results.begin(), results.end(), '\n') == 3);

  const std::string serve = serve_csv(r);
  CHECK(serve.rfind("concurrency,requests,completed,failed,", 0) == 0);
  CHECK(serve.find("tpot_ms.p50") != std::string::npos);
  CHECK(serve.find("errors.http_5xx") != std::string::npos);
  // The failed level's empty distributions are empty cells, never zeros.
  const auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::size_t begin = 0;
    for (std::size_t comma; (comma = line.find(',', begin)) != std::string::npos; begin = comma + 1)
      cells.push_back(line.substr(begin, comma - begin));
    cells.push_back(line.substr(begin));
    return cells;
  };
  const std::vector<std::string> head = split(serve.substr(0, serve.find('\n')));
  const std::string last = serve.substr(serve.rfind('\n', serve.size() - 2) + 1);
  const std::vector<std::string> row = split(last.substr(0, last.size() - 1));
  REQUIRE(row.size() == head.size());
  CHECK(last.rfind("2,3,0,3,", 0) == 0);
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(head.begin(), head.end(), name) - head.begin());
  };
  CHECK(row.at(column("tpot_ms.p50")).empty());
  CHECK(row.at(column("ttft_ms.max")).empty());
}

TEST_CASE("the console prints every percentile asked for, as report.md does", "[messages][serve]") {
  ServeLevel level = serve_level(1, 50.2, 19.6);
  level.completed = level.requests = 8;
  level.duration_s = 3.0;
  for (const char* name : {"ttft", "tpot", "itl", "e2el"}) {
    level.vllm_bench_serve[fmt::format("mean_{}_ms", name)] = 52.22;
    level.vllm_bench_serve[fmt::format("median_{}_ms", name)] = 52.15;
    level.vllm_bench_serve[fmt::format("p50_{}_ms", name)] = 52.15;
    level.vllm_bench_serve[fmt::format("p90_{}_ms", name)] = 60.5;
    level.vllm_bench_serve[fmt::format("p99_{}_ms", name)] = 71.25;
  }
  level.vllm_bench_serve["output_throughput"] = 157.5;
  level.vllm_bench_serve["total_token_throughput"] = 500.0;
  const std::string line = serve_level_line(level, {50, 90, 99});
  for (const char* name : {"TTFT", "TPOT", "ITL", "E2EL"})
    CHECK(line.find(fmt::format("| {} mean 52.22 median 52.15 P50 52.15 P90 60.50 P99 71.25 ms", name)) !=
          std::string::npos);
  // The whole-level throughput, named apart from report.md's steady-window one.
  CHECK(line.find("| output 157.50 tok/s, total 500.00 tok/s over the whole level") != std::string::npos);
  CHECK(serve_level_line(level, {99}).find("| TTFT mean 52.22 median 52.15 P99 71.25 ms") !=
        std::string::npos);
}
