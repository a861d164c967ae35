// --profile without a server: the serve.profile key and its checks, the refusal line per engine, the live
// step's relation to TPOT and the replay and its headline sentence; the trace-folder watcher on real files in
// a temporary folder (time given to it, so no test waits for it), the adapter from a trace to a live step,
// and the live profile reader end to end on files written beforehand (a second or two of its own waiting).
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "../analysis/temp_dir.hpp"
#include "analysis/journal_records.hpp"
#include "analysis/live_step.hpp"
#include "analysis/report_reader.hpp"
#include "common/error.hpp"
#include "config/config_loader.hpp"
#include "live_profile/live_capture_join.hpp"
#include "live_profile/live_profile.hpp"
#include "live_profile/live_trace_read.hpp"
#include "live_profile/trace_folder_watcher.hpp"
#include "report/live_step_markdown.hpp"
#include "serve/profiler_client.hpp"

using namespace k25;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

// configs/smoke.yaml (which has no serve section) with `serve.profile: VALUE`.
std::string smoke_with_profile(const std::string& value) {
  std::ifstream file(std::string(K25_SOURCE_DIR) + "/configs/smoke.yaml");
  std::stringstream text;
  text << file.rdbuf() << "serve:\n  profile: " << value << "\n";
  return text.str();
}

ServeProfileLevels profile_of(const std::string& value) {
  return parse_config(smoke_with_profile(value), "p.yaml").serve.profile;
}

}  // namespace

TEST_CASE("serve.profile reads all, none, a list and a comma-separated text", "[live-profile]") {
  CHECK(profile_of("all").all);
  CHECK_FALSE(profile_of("none").any());
  CHECK(profile_of("[1, 64]").levels == std::vector<int>{1, 64});
  CHECK(profile_of("\"8,128\"").levels == std::vector<int>{8, 128});
  CHECK(profile_of("[1, 64]").covers(64));
  CHECK_FALSE(profile_of("[1, 64]").covers(8));
  CHECK_FALSE(load_config(std::string(K25_SOURCE_DIR) + "/configs/smoke.yaml")
                  .serve.profile.any());  // off unless asked
  CHECK_THROWS_AS(profile_of("\"8,x\""), ConfigError);
  CHECK_THROWS_AS(profile_of("0"), ConfigError);
}

TEST_CASE("a refused start says the restart option of the engine found", "[live-profile]") {
  const ProfilerAnswer not_found{false, 404, "HTTP 404: {\"detail\":\"Not Found\"}"};
  const std::string vllm =
      profiler_refusal_line({ServeEngine::vllm, "0.13.0", "GET /version"}, "/t", not_found);
  CHECK(
      vllm ==
      "profile: the server refused /start_profile (HTTP 404: {\"detail\":\"Not Found\"}); the serve phase went on without profiling. vLLM 0.13.0 serves its profiler routes only when started with a profiler: restart it with --profiler-config '{\"profiler\": \"torch\", \"torch_profiler_dir\": \"/t\"}', and give k25comm --profile-dir /t. The replay needs no restart.");
  const std::string old_vllm =
      profiler_refusal_line({ServeEngine::vllm, "0.11.2", "GET /version"}, "/t", not_found);
  CHECK(old_vllm.find("restart it with VLLM_TORCH_PROFILER_DIR=/t in its environment, and give") !=
        std::string::npos);
  const std::string sglang = profiler_refusal_line({ServeEngine::sglang, "0.5.2", "x"}, "", not_found);
  CHECK(sglang.find("SGLang needs no restart option: it writes where the request's output_dir says (DIR)") !=
        std::string::npos);
  const std::string unknown = profiler_refusal_line({}, "/t", not_found);
  CHECK(
      unknown.find("went on without profiling. The engine was not told (serve.engine / --engine); vLLM: ") !=
      std::string::npos);
  CHECK(unknown.find("(0.13 and later) or VLLM_TORCH_PROFILER_DIR=/t in its environment (before)") !=
        std::string::npos);
  CHECK(vllm_has_profiler_config("1.0.0") == true);
  CHECK(vllm_has_profiler_config("0.12.9") == false);
  CHECK_FALSE(vllm_has_profiler_config("dev").has_value());
}

TEST_CASE("the live step sits beside the level's TPOT, the window's and the replay's burst",
          "[live-profile]") {
  LiveProfile live;
  live.present = true;
  LiveStepLevel level;
  level.concurrency = 8;
  level.status = LiveStepStatus::read;
  level.step = "decode step at batch 8";
  level.comm_share = 0.515;
  level.comm_busy_share = 0.6;
  level.exposed_share = 0.331;
  live.levels.push_back(level);
  ServeReport serve;
  ServeLevel served;
  served.concurrency = 8;
  served.tpot_ms = Stats{};
  served.tpot_ms->p50 = 12.4;
  serve.levels.push_back(served);
  ProfileWindow window;
  window.concurrency = 8;
  window.tpot_ms = Stats{};
  window.tpot_ms->p50 = 14.0;
  serve.profile.windows.push_back(window);
  AttributionRow row;
  row.concurrency = 8;
  row.comm = {{{"allreduce", TimingMode::eager}, 8, 7.5},
              {{"allreduce", TimingMode::graph}, 8, 6.2},
              {{"alltoall", TimingMode::eager}, 1, 0.62}};
  relate_live_steps(live, serve, {row});
  CHECK(live.levels[0].level_tpot_ms == 12.4);
  CHECK(live.levels[0].window_tpot_ms == 14.0);
  CHECK(live.levels[0].replay_burst_ms == Approx(6.82));  // graph AllReduce 6.2 + eager All-to-All 0.62
  CHECK(
      live_headline_sentence(live) ==
      "live profile at C=8: communication 51.5 % of the decode step at batch 8's wall (60.0 % of GPU busy), exposed 33.1 %; the replay's burst 6.82 ms = 55.0 % of TPOT 12.4 ms");
  live.levels[0].status = LiveStepStatus::unread;
  CHECK_FALSE(live_headline_sentence(live).has_value());
}

TEST_CASE("a journal's profile windows and live steps come back in the report", "[live-profile]") {
  RunReport report;
  ServeReport serve;
  serve.profile.asked = true;
  serve.profile.engine = "sglang";
  ServeLevel level;
  level.concurrency = 8;
  ProfileWindow window;
  window.concurrency = 8;
  window.status = ProfileWindowStatus::recorded;
  window.requests = 8;
  LiveStepLevel live;
  live.concurrency = 8;
  live.status = LiveStepStatus::read;
  live.wall_us = 12400;
  live.kinds = {{"AllReduce", 123, 6390, 0.515}};
  live.backends = {{"AllReduce", 14336, "vLLM custom all-reduce (1-stage)", 984, 9.5},
                   {"AllGather", std::nullopt, "NCCL (RING_LL kernel)", 8, 31}};
  live.backend_rules = {
      {"vLLM custom all-reduce (1-stage)", 8, "vLLM turns it off beyond two PCIe GPUs", "vLLM"}};
  std::string journal;
  LiveStepLevel first = live;  // as read when its wait ended, before a late file of its window came
  first.wall_us = 1;
  for (const nlohmann::json& line :
       {run_start_record(report), serve_start_record(serve), serve_level_record(level),
        profile_window_record(window), live_step_record(first), live_step_record(live),
        run_end_record(report.run)})
    journal += line.dump() + "\n";
  const RunReport back = parse_report_text(journal, "journal.jsonl");
  CHECK(back.serve.profile.engine == "sglang");
  REQUIRE(back.serve.profile.windows.size() == 1);
  CHECK(back.serve.profile.windows[0].requests == 8);
  REQUIRE(back.live_profile.levels.size() == 1);  // a level read again replaces what it was
  CHECK(back.live_profile.levels[0].wall_us == 12400);
  CHECK(back.live_profile.levels[0].kinds[0].merged_us == 6390);
  // report.json keeps them too, and a report without --profile has neither section.
  const RunReport again = nlohmann::json(back).get<RunReport>();
  CHECK(again.live_profile.levels[0].kinds[0].ops_per_step == 123);
  CHECK(again.serve.profile.windows[0].status == ProfileWindowStatus::recorded);
  // The backends that ran, per kind and size, and the engine's rule, come back and reach report.md.
  for (const LiveStepLevel& read : {back.live_profile.levels[0], again.live_profile.levels[0]}) {
    REQUIRE(read.backends.size() == 2);
    CHECK((read.backends[0].bytes == std::optional<std::uint64_t>(14336) && read.backends[0].count == 984 &&
           read.backends[0].backend == "vLLM custom all-reduce (1-stage)" &&
           read.backends[0].op_us_p50 == 9.5));
    CHECK((read.backends[1].kind == "AllGather" && !read.backends[1].bytes));
    REQUIRE(read.backend_rules.size() == 1);
    CHECK((read.backend_rules[0].ranks == 8 && read.backend_rules[0].source == "vLLM"));
  }
  RunReport shown = again;
  shown.serve.profile.asked = true;
  const std::string md = render_live_profile(shown);
  CHECK_THAT(md, Contains("| 8 | AllReduce | 14336 | vLLM custom all-reduce (1-stage) | 984 | 9.500 |"));
  CHECK_THAT(md, Contains("| 8 | AllGather | unknown | NCCL (RING_LL kernel) | 8 | 31.00 |"));
  CHECK_THAT(
      md,
      Contains(
          "- C=8: vLLM custom all-reduce (1-stage) on 8 ranks: vLLM turns it off beyond two PCIe GPUs (source: vLLM)."));
  const nlohmann::json plain = RunReport{};
  CHECK_FALSE(plain.contains("live_profile"));
  CHECK_FALSE(plain["serve"].contains("profile"));
}

TEST_CASE("a merge takes the serve run's live profile with its serve results", "[live-profile]") {
  RunReport comm, served;
  ServeLevel level;
  level.concurrency = 1;
  served.serve.levels.push_back(level);
  served.live_profile.present = true;
  served.live_profile.levels.emplace_back().concurrency = 1;
  const RunReport merged = merge_serve_report(comm, served);
  CHECK(merged.live_profile.present);
  REQUIRE(merged.live_profile.levels.size() == 1);
  CHECK(merged.live_profile.levels[0].concurrency == 1);
}

TEST_CASE("a profiled level that is not run is refused at the start", "[live-profile]") {
  RunConfig config = parse_config(smoke_with_profile("[1, 8]"), "p.yaml");
  config.serve.concurrency = {1, 4};
  CHECK_THROWS_WITH(
      validate_profile_levels(config),
      "serve.profile (--profile) names concurrency 8, which this run does not run (serve.concurrency / --concurrency: 1, 4): profile levels that run, or add 8 to --concurrency");
  config.serve.concurrency = {1, 4, 8};
  CHECK_NOTHROW(validate_profile_levels(config));
  config.serve.profile = profile_of("all");
  CHECK_NOTHROW(validate_profile_levels(config));
}

TEST_CASE("a profile folder that is a file is refused at the start, one not here is said", "[live-profile]") {
  const test::TempDir dir;
  ServeSpec serve;
  serve.profile_dir = dir.write("file", "x");
  CHECK_THROWS_WITH(profile_folder_lines(serve),
                    "--profile-dir " + serve.profile_dir +
                        ": not a folder (the server writes one trace file per rank into a folder)");
  serve.profile_dir = (dir.path() / "missing").string();
  const std::vector<std::string> missing = profile_folder_lines(serve);
  REQUIRE(missing.size() == 1);
  CHECK_THAT(missing[0], StartsWith("profile: the profile folder " + serve.profile_dir +
                                    " does not exist here: give it as this host sees it"));
  serve.profile_dir = dir.path().string();
  CHECK(profile_folder_lines(serve).empty());
  serve.profile_dir.clear();
  CHECK_THAT(profile_folder_lines(serve)[0], StartsWith("profile: no profile folder given"));
}

TEST_CASE("a --capture level that is no concurrency is a usage error", "[live-profile]") {
  RunReport report;
  ProfileWindow window;
  window.concurrency = 1;
  window.status = ProfileWindowStatus::recorded;
  report.serve.profile.windows.push_back(window);
  CHECK_THROWS_WITH(
      join_live_captures(report, {"99999999999:/nowhere"}),
      "--capture 99999999999:/nowhere: 99999999999 is not a concurrency 1..4096 (give C:DIR or DIR)");
  CHECK_THROWS_WITH(join_live_captures(report, {"8:/nowhere"}),
                    "--capture 8:/nowhere: the report has no profiled window at concurrency 8");
}

TEST_CASE("a trace's headline group becomes the level's live step", "[live-profile]") {
  TraceResult trace;
  trace.step_method = "engine_marks";
  TraceStepGroup prefill, decode;
  prefill.phase = "prefill";
  prefill.batch = 1;
  prefill.steps = 1;
  decode.phase = "decode";
  decode.batch = 4;
  decode.steps = 6;
  decode.wall_us.p50 = 100;
  decode.busy_us.p50 = 80;
  decode.comm_merged_us.p50 = 20;
  decode.comm_exposed_us.p50 = 10;
  decode.comm_share = 0.2;
  decode.exposed_share = 0.1;
  decode.kinds.push_back({"AllReduce", 8, {}, {}, {}, 0.2, 0, "", "", ""});
  decode.kinds.back().merged_us.p50 = 20;
  decode.classes.push_back({"gemm", 8, {}, {}, 0.5});
  decode.classes.back().merged_us.p50 = 50;
  trace.groups = {prefill, decode};
  LiveStepLevel level;
  fill_live_step(level, trace);
  CHECK(level.status == LiveStepStatus::read);
  CHECK(level.step == "decode step at batch 4");  // decode first, whatever the order
  CHECK(level.steps == 6);
  CHECK((level.wall_us == 100 && level.gpu_busy_us == 80 && level.comm_merged_us == 20));
  CHECK(level.comm_busy_share == 0.25);  // 20 of 80 us busy
  REQUIRE(level.kinds.size() == 1);
  CHECK((level.kinds[0].kind == "AllReduce" && level.kinds[0].ops_per_step == 8 &&
         level.kinds[0].merged_us == 20));
  REQUIRE(level.classes.size() == 1);
  CHECK((level.classes[0].cls == "gemm" && level.classes[0].merged_us == 50));
  trace.groups.clear();
  trace.step_method_detail = "no marks";
  fill_live_step(level, trace);
  CHECK(level.status == LiveStepStatus::failed);
  CHECK(level.note == "the traces hold no step the capture could find: no marks");
}

namespace {

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// One rank's Kineto trace as PyTorch writes it (events in microseconds relative to baseTimeNanoseconds, which
// comes last): three steps 1 ms apart, each a GEMM of 4 us and an AllReduce of 2 us, from `first_unix_s`.
// `closed` false leaves out what follows the events, as a trace still being written.
std::string rank_trace(int rank, int world, std::int64_t first_unix_s, bool closed = true) {
  std::string events;
  for (int step = 0; step < 3; ++step) {
    const double t = 1000.0 * step;
    events += fmt::format(
        R"json({}{{"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32", "pid": 0, "tid": 7, "ts": {}, "dur": 4, "args": {{"device": 0}}}},
         {{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "pid": 0, "tid": 7, "ts": {}, "dur": 2, "args": {{"device": 0}}}})json",
        step == 0 ? "" : ",\n", t, t + 5);
  }
  std::string text = fmt::format(
      R"({{"distributedInfo": {{"backend": "nccl", "rank": {}, "world_size": {}}}, "traceEvents": [{})", rank,
      world, events);
  if (closed) text += fmt::format(R"(], "baseTimeNanoseconds": {}}})", first_unix_s * 1000000000);
  return text;
}

RunConfig live_config(const test::TempDir& dir) {
  RunConfig config = load_config(std::string(K25_SOURCE_DIR) + "/configs/smoke.yaml");
  config.config_path = "smoke.yaml";
  config.serve.profile_dir = (dir.path() / "traces").string();
  config.serve.profile_kernel_classes = std::string(K25_SOURCE_DIR) + "/data/kernel-classes.yaml";
  config.output.dir = (dir.path() / "out").string();
  std::filesystem::create_directories(config.serve.profile_dir);
  std::filesystem::create_directories(config.output.dir);
  return config;
}

struct Folder {
  test::TempDir dir;
  RunConfig config = live_config(dir);
  LiveTraceReader reader{config};
  std::string traces = config.serve.profile_dir;
  double now = unix_now();
  std::int64_t events = static_cast<std::int64_t>(now) - 20;  // inside the window of one_window()

  // A recorded window at `concurrency` that ran from 30 to 10 s ago.
  ProfileWindow recorded_window(int concurrency) const {
    ProfileWindow window;
    window.concurrency = concurrency;
    window.status = ProfileWindowStatus::recorded;
    window.started_unix_s = now - 30;
    window.stopped_unix_s = now - 10;
    return window;
  }

  // A watcher whose first window ran from 30 to 10 s ago, begun at watcher time 0.
  TraceFolderWatcher one_window() {
    TraceFolderWatcher w = watcher();
    w.begin_window({1, now - 30, now - 10}, 0);
    return w;
  }

  TraceFolderWatcher watcher(WatchRules rules = {}) {
    rules.quiet_s = 1;
    rules.settle_s = 5;
    rules.wait_s = 100;
    return TraceFolderWatcher(traces, rules, [this](const std::string& path) { return reader.facts(path); });
  }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = (std::filesystem::path(traces) / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
};

}  // namespace

TEST_CASE("watcher: a window's files are read once quiet, and every rank's file ends the wait",
          "[live-profile]") {
  Folder f;
  const std::int64_t events = f.events;
  TraceFolderWatcher watcher = f.one_window();
  const std::string r0 = f.write("x-rank-0.json", rank_trace(0, 2, events));
  watcher.scan(0);
  CHECK_FALSE(watcher.ended(0));  // seen, not yet read: it may be half written
  watcher.scan(1);
  CHECK_FALSE(watcher.ended(1));  // 1 of 2 ranks, changed 1 s ago
  const std::string r1 = f.write("x-rank-1.json", rank_trace(1, 2, events));
  watcher.scan(2);
  CHECK_FALSE(watcher.ended(2));
  watcher.scan(3);
  CHECK(watcher.ended(3) == WaitEnd::all_ranks);
  const WindowFiles found = watcher.finish_window();
  CHECK(found.files == std::vector<std::string>{r0, r1});
  CHECK(found.ranks == std::vector<int>{0, 1});
  CHECK(found.world_size == 2);
  CHECK((found.pending.empty() && found.late.empty() && found.nobodys.empty() && found.refused.empty()));
}

TEST_CASE("watcher: a file still being written holds the wait until it is whole", "[live-profile]") {
  Folder f;
  const std::int64_t events = f.events;
  TraceFolderWatcher watcher = f.one_window();
  const std::string path = f.write("x-rank-0.json", rank_trace(0, 1, events, /*closed=*/false));
  watcher.scan(0);
  watcher.scan(1);
  CHECK_FALSE(watcher.ended(50));  // never settled while a file is cut
  CHECK(watcher.ended(100) == WaitEnd::deadline);
  f.write("x-rank-0.json", rank_trace(0, 1, events));
  watcher.scan(60);
  watcher.scan(61);
  CHECK(watcher.ended(61) == WaitEnd::all_ranks);
  CHECK(watcher.finish_window().files == std::vector<std::string>{path});
}

TEST_CASE("watcher: fewer ranks than the world size end the wait a settle time after the last change",
          "[live-profile]") {
  Folder f;
  TraceFolderWatcher watcher = f.one_window();
  f.write("x-rank-3.json", rank_trace(3, 8, f.events));
  watcher.scan(0);
  watcher.scan(1);
  CHECK_FALSE(watcher.ended(4.9));
  CHECK(watcher.ended(5) == WaitEnd::settled);
  const WindowFiles found = watcher.finish_window();
  CHECK((found.ranks == std::vector<int>{3} && found.world_size == 8));
}

TEST_CASE("watcher: a file is the window's whose start..stop holds its events", "[live-profile]") {
  Folder f;
  const double now = unix_now();
  const auto at = [&](double seconds_ago) { return static_cast<std::int64_t>(now - seconds_ago); };
  TraceFolderWatcher watcher = f.watcher();
  watcher.begin_window({1, now - 60, now - 50}, 0);
  watcher.scan(0);
  CHECK(watcher.ended(100) == WaitEnd::deadline);
  CHECK_FALSE(watcher.finish_window().any_file);
  watcher.begin_window({4, now - 40, now - 30}, 100);
  const std::string late = f.write("c1-rank-1.json", rank_trace(1, 2, at(55)));      // the first window's
  const std::string own = f.write("c4-rank-0.json", rank_trace(0, 2, at(35)));       // this one's
  const std::string stray = f.write("other-rank-0.json", rank_trace(0, 2, at(45)));  // 5 s from either
  watcher.scan(100);
  watcher.scan(101);
  CHECK_FALSE(watcher.ended(101));  // 1 of 2 ranks: the late file is not this window's rank 1
  CHECK(watcher.ended(106) == WaitEnd::settled);
  const WindowFiles found = watcher.finish_window();
  CHECK(found.files == std::vector<std::string>{own});
  REQUIRE(found.late.size() == 1);
  CHECK((found.late[0].path == late && found.late[0].window == 0));
  CHECK(found.nobodys == std::vector<std::string>{stray});
  // Judged once: the next window does not see them again.
  watcher.begin_window({16, now - 5, now}, 200);
  watcher.scan(200);
  watcher.scan(201);
  CHECK_FALSE(watcher.finish_window().any_file);
}

TEST_CASE("watcher: files written before the window are never looked at", "[live-profile]") {
  Folder f;
  const double now = unix_now();
  const std::string old = f.write("old-rank-0.json", rank_trace(0, 1, static_cast<std::int64_t>(now) - 5));
  std::filesystem::last_write_time(old,
                                   std::filesystem::file_time_type::clock::now() - std::chrono::hours(1));
  TraceFolderWatcher watcher = f.watcher();
  watcher.begin_window({1, now - 10, now}, 0);
  watcher.scan(0);
  watcher.scan(2);
  CHECK_FALSE(watcher.ended(99));
  CHECK(watcher.ended(100) == WaitEnd::deadline);
  CHECK_FALSE(watcher.finish_window().any_file);
}

TEST_CASE("watcher: what the capture refuses, and traces without GPU events, are never the window's",
          "[live-profile]") {
  Folder f;
  const double now = f.now;
  TraceFolderWatcher watcher = f.one_window();
  const std::string junk = f.write("notes.txt", "not a trace\n");
  const std::string host = f.write(
      "frontend.json",
      fmt::format(
          R"({{"traceEvents": [{{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5, "dur": 1}}], "baseTimeNanoseconds": {}}})",
          static_cast<std::int64_t>(now - 20) * 1000000000));
  watcher.scan(0);
  watcher.scan(1);
  CHECK_FALSE(watcher.ended(99));  // neither settles the wait: no file with GPU events came
  CHECK(watcher.ended(100) == WaitEnd::deadline);
  const WindowFiles found = watcher.finish_window();
  CHECK(found.files.empty());
  CHECK(found.host_only == std::vector<std::string>{host});
  REQUIRE(found.refused.size() == 1);
  CHECK(found.refused[0].path == junk);
  CHECK_THAT(found.refused[0].why, StartsWith(junk + ": "));
}

TEST_CASE("watcher: a host-only trace written first settles nothing, the workers' files that follow do",
          "[live-profile]") {
  // Issue 51: vLLM's frontend writes its host-only trace at the stop, the workers' export takes longer than
  // the settle time; the wait ended on the host-only file and the level failed.
  Folder f;
  TraceFolderWatcher watcher = f.one_window();
  const std::string host = f.write(
      "frontend.json",
      fmt::format(
          R"({{"traceEvents": [{{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5, "dur": 1}}], "baseTimeNanoseconds": {}}})",
          f.events * 1000000000));
  watcher.scan(0);
  watcher.scan(1);
  CHECK_FALSE(watcher.ended(6));
  CHECK_FALSE(watcher.ended(10));
  const std::string rank = f.write("worker-rank-0.json", rank_trace(0, 8, f.events));
  watcher.scan(10);
  watcher.scan(11);
  CHECK_FALSE(watcher.ended(14.9));  // 1 of 8 ranks: the settle time runs from its last change
  CHECK(watcher.ended(15) == WaitEnd::settled);
  const WindowFiles found = watcher.finish_window();
  CHECK(found.files == std::vector<std::string>{rank});
  CHECK(found.host_only == std::vector<std::string>{host});
}

TEST_CASE("live profile: a window's files are linked per level and read as k25comm capture reads them",
          "[live-profile]") {
  Folder f;
  f.write("x-rank-0.json", rank_trace(0, 2, f.events));
  f.write("x-rank-1.json", rank_trace(1, 2, f.events));
  std::vector<LiveStepLevel> seen;
  LiveProfileReader live(f.config, [&](const LiveStepLevel& level) { seen.push_back(level); });
  ProfileWindow window = f.recorded_window(4);
  live.window_ended(window);
  REQUIRE(seen.size() == 1);
  const LiveStepLevel& level = seen[0];
  CHECK(level.status == LiveStepStatus::read);
  CHECK(level.note.empty());
  CHECK(level.files.size() == 2);
  const std::string folder = f.config.output.dir + "/live-profile/c4";
  CHECK(level.capture_command == "k25comm capture " + folder + " --model smoke.yaml");
  CHECK(std::filesystem::is_symlink(folder + "/x-rank-1.json"));
  // The same figures as the capture's door gives over the linked folder.
  const TraceRead read = f.reader.read({folder});
  REQUIRE(read.trace);
  LiveStepLevel direct;
  fill_live_step(direct, *read.trace);
  CHECK((level.steps == direct.steps && level.wall_us == direct.wall_us &&
         level.comm_merged_us == direct.comm_merged_us && level.gpu_busy_us == direct.gpu_busy_us));
  CHECK(level.comm_merged_us == 2.0);  // one AllReduce of 2 us a step, on both ranks
  // The backend that ran each kind, as the capture says it: NCCL's ring LL kernel, 3 steps on 2 ranks.
  REQUIRE(level.backends.size() == read.trace->backends.size());
  REQUIRE(level.backends.size() == 1);
  CHECK(level.backends[0].kind == "AllReduce");
  CHECK(level.backends[0].backend == read.trace->backends[0].backend);
  CHECK(level.backends[0].backend == "NCCL (RING_LL kernel)");
  CHECK(level.backends[0].count == 6);
  CHECK(level.backends[0].op_us_p50 == 2.0);
  CHECK(level.backends[0].bytes == read.trace->backends[0].bytes);
  CHECK(level.backend_rules.empty());  // NCCL on 2 ranks: no engine's rule says otherwise
  CHECK(live.result().levels.size() == 1);
  // A refused window is not waited for.
  window.status = ProfileWindowStatus::refused;
  live.window_ended(window);
  CHECK(seen.size() == 1);
}

TEST_CASE("live profile: links that fail, and a folder that vanished, are notes, never a throw",
          "[live-profile]") {
  Folder f;
  f.write("x-rank-0.json", rank_trace(0, 1, f.events));
  std::ofstream(f.config.output.dir + "/live-profile") << "a file where the link folder would be";
  LiveProfileReader live(f.config, {});
  ProfileWindow window = f.recorded_window(1);
  live.window_ended(window);
  const LiveStepLevel linked = live.result().levels.at(0);
  CHECK(linked.status == LiveStepStatus::read);
  CHECK_THAT(linked.note,
             StartsWith("the files could not be linked under " + f.config.output.dir + "/live-profile/c1 ("));
  CHECK_THAT(linked.note, Contains("): the capture command names them one by one"));
  CHECK(linked.capture_command == "k25comm capture " + f.traces + "/x-rank-0.json --model smoke.yaml");
  std::filesystem::remove_all(f.traces);
  window.concurrency = 2;
  live.window_ended(window);
  const LiveStepLevel vanished = live.result().levels.at(1);
  CHECK(vanished.status == LiveStepStatus::unread);
  CHECK_THAT(vanished.note, StartsWith("the profile folder " + f.traces + " does not exist on this host"));
  CHECK(vanished.capture_command == "k25comm capture DIR --model smoke.yaml");
}
