// The live decode step of each profiled serve level, read from the engine's own profiler traces (report.json
// live_profile): where a step's time goes at that concurrency, beside the level's TPOT and the replay's burst
// at T = concurrency. app fills it from the capture's analysis; report renders it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/attribution.hpp"
#include "common/enum_names.hpp"
#include "serve/serve_result.hpp"

namespace k25 {

// Per step of the level's decode step group, p50 over its steps (microseconds), and the share of the group's
// whole wall time, as `k25comm capture` gives them (capture.json trace.groups).
struct LiveStepKind {
  std::string kind;  // "AllReduce", ...
  double ops_per_step = 0;
  double merged_us = 0;
  double share = 0;
};
struct LiveStepClass {
  std::string cls;  // "gemm", "attention", ... (the kernel-class table's names)
  double merged_us = 0;
  double share = 0;
};

// What became of a profiled level's live step. read: the figures are the traces'; unread: the profile folder
// is not seen from here (capture_command reads the traces where they are, and `k25comm report --capture`
// joins them later); failed: its files never came or completed, or could not be read (the note says why).
enum class LiveStepStatus { read, unread, failed };

template <>
struct EnumNames<LiveStepStatus> {
  static constexpr std::array<std::pair<LiveStepStatus, std::string_view>, 3> values{{
      {LiveStepStatus::read, "read"},
      {LiveStepStatus::unread, "unread"},
      {LiveStepStatus::failed, "failed"},
  }};
};

struct LiveStepLevel {
  int concurrency = 0;
  LiveStepStatus status = LiveStepStatus::failed;
  std::string note;
  std::vector<std::string> files;  // the trace files of this window
  std::string capture_command;     // the exact `k25comm capture` command over the same files
  std::string step;                // "decode step at batch 8"
  std::optional<int> batch;
  std::uint64_t steps = 0;  // steps read (the group's)
  double wall_us = 0, gpu_busy_us = 0, comm_merged_us = 0, comm_exposed_us = 0;
  double comm_share = 0, exposed_share = 0;  // of the group's wall time
  double comm_busy_share = 0;                // comm merged over GPU busy (p50 / p50)
  std::vector<LiveStepKind> kinds;
  std::vector<LiveStepClass> classes;
  // Derived (relate_live_steps), not read back: TPOT p50 of the level and of its profiled window, and the
  // replay's burst at T = concurrency (ms), where a replay ran.
  std::optional<double> level_tpot_ms, window_tpot_ms, replay_burst_ms;
};

struct LiveProfile {
  bool present = false;  // profiling was asked and its windows were looked at
  std::vector<LiveStepLevel> levels;
};

// Fills each level's TPOTs from the serve report (the level and its profiled window) and the replay's burst
// at T = concurrency from the attribution (graph mode where measured, else eager; AllReduce plus All-to-All).
void relate_live_steps(LiveProfile& live, const ServeReport& serve, const std::vector<AttributionRow>& rows);

// The headline's sentence for the first level read: "live profile at C=1: communication 51.5 % of the decode
// step's wall (60.2 % of GPU busy), exposed 33.1 %; the replay's burst 6.81 ms = 55.0 % of TPOT 12.4 ms";
// nullopt when no level was read.
std::optional<std::string> live_headline_sentence(const LiveProfile& live);

void to_json(nlohmann::json& j, const LiveStepLevel& level);
void from_json(const nlohmann::json& j, LiveStepLevel& level);
void to_json(nlohmann::json& j, const LiveProfile& live);
void from_json(const nlohmann::json& j, LiveProfile& live);

}  // namespace k25
