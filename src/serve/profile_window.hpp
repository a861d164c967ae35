// A profiled window of a serve level: the engine's profiler started, one wave of requests at the level's
// concurrency, the profiler stopped. Its requests are counted apart: they never enter the level's figures
// (report.json serve.profile).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/enum_names.hpp"
#include "common/stats.hpp"
#include "config/run_config.hpp"

namespace k25 {

class StreamingClient;
struct EngineIdentity;

// What became of a profile window. recorded: started, its requests sent, stopped (a refused stop is noted in
// its message: SGLang stops by itself after num_steps), the files are the server's to write; refused:
// /start_profile was refused (nothing was sent); failed: a signal cut the window short.
enum class ProfileWindowStatus { recorded, refused, failed };

template <>
struct EnumNames<ProfileWindowStatus> {
  static constexpr std::array<std::pair<ProfileWindowStatus, std::string_view>, 3> values{{
      {ProfileWindowStatus::recorded, "recorded"},
      {ProfileWindowStatus::refused, "refused"},
      {ProfileWindowStatus::failed, "failed"},
  }};
};

struct ProfileWindow {
  int concurrency = 0;
  ProfileWindowStatus status = ProfileWindowStatus::failed;
  std::string message;  // why it was refused or failed, or what the stop answered
  int requests = 0, completed = 0, failed = 0;
  std::optional<Stats> tpot_ms, ttft_ms;  // over the window's completed requests (profiling slows the engine)
  double started_unix_s = 0, stopped_unix_s = 0;  // wall clock: trace files older than the start are not its
};

// The profiler part of the serve report.
struct ServeProfile {
  bool asked = false;
  std::string engine;           // "vllm", "sglang" or "auto" (not told)
  std::string engine_version;   // as the server gave it
  std::string engine_source;    // how it was told
  std::string engine_conflict;  // serve.engine given and the server said otherwise: what it said
  std::string profile_dir;
  int steps = 0;        // num_steps asked of SGLang
  std::string refusal;  // the one line that says what to do, when the engine refused
  std::vector<ProfileWindow> windows;
};

// Profiles one window at `concurrency` (at most `concurrency` requests in flight, `concurrency` requests in
// all): start, the requests, stop. A refusal or failure is recorded in the window, never thrown.
ProfileWindow run_profile_window(const ServeSpec& spec, const EngineIdentity& engine, StreamingClient& client,
                                 int concurrency);

void to_json(nlohmann::json& j, const ProfileWindow& window);
void from_json(const nlohmann::json& j, ProfileWindow& window);
void to_json(nlohmann::json& j, const ServeProfile& profile);
void from_json(const nlohmann::json& j, ServeProfile& profile);

}  // namespace k25
