// --profile's pure parts: the serve.profile key, the refusal line per engine, the live step's relation to
// TPOT and the replay, and its headline sentence.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "analysis/journal_records.hpp"
#include "analysis/live_step.hpp"
#include "analysis/report_reader.hpp"
#include "common/error.hpp"
#include "config/config_loader.hpp"
#include "serve/profiler_client.hpp"

using namespace k25;

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
  level.status = "read";
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
  row.comm = {{"allreduce_eager", 8, 7.5}, {"allreduce_graph", 8, 6.2}, {"alltoall_eager", 1, 0.62}};
  relate_live_steps(live, serve, {row});
  CHECK(live.levels[0].level_tpot_ms == 12.4);
  CHECK(live.levels[0].window_tpot_ms == 14.0);
  CHECK(live.levels[0].replay_burst_ms == Approx(6.82));  // graph AllReduce 6.2 + eager All-to-All 0.62
  CHECK(
      live_headline_sentence(live) ==
      "live profile at C=8: communication 51.5 % of the decode step at batch 8's wall (60.0 % of GPU busy), exposed 33.1 %; the replay's burst 6.82 ms = 55.0 % of TPOT 12.4 ms");
  live.levels[0].status = "unread";
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
  window.status = "recorded";
  window.requests = 8;
  LiveStepLevel live;
  live.concurrency = 8;
  live.status = "read";
  live.wall_us = 12400;
  live.kinds = {{"AllReduce", 123, 6390, 0.515}};
  std::string journal;
  for (const nlohmann::json& line :
       {run_start_record(report), serve_start_record(serve), serve_level_record(level),
        profile_window_record(window), live_step_record(live), run_end_record(report.run)})
    journal += line.dump() + "\n";
  const RunReport back = parse_report_text(journal, "journal.jsonl");
  CHECK(back.serve.profile.engine == "sglang");
  REQUIRE(back.serve.profile.windows.size() == 1);
  CHECK(back.serve.profile.windows[0].requests == 8);
  REQUIRE(back.live_profile.levels.size() == 1);
  CHECK(back.live_profile.levels[0].wall_us == 12400);
  CHECK(back.live_profile.levels[0].kinds[0].merged_us == 6390);
  // report.json keeps them too, and a report without --profile has neither section.
  const RunReport again = nlohmann::json(back).get<RunReport>();
  CHECK(again.live_profile.levels[0].kinds[0].ops_per_step == 123);
  CHECK(again.serve.profile.windows[0].status == "recorded");
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
