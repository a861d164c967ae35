// The live profile in words: report.md's section (a live-step table per profiled level beside its TPOT and
// the replay's burst, and the step's time by kernel class), and the console lines of a profile window and of
// its live step.
#pragma once

#include <string>

#include "analysis/run_report.hpp"

namespace k25 {

// "## Live profile (the engine's own profiler)" with its tables, or "" when profiling was not asked.
std::string render_live_profile(const RunReport& report);

// "profile C=8: 8 requests while profiling (8 completed), TPOT p50 24.1 ms" or the refusal's line.
std::string profile_window_line(const ProfileWindow& window);

// "live step C=8: decode step at batch 8, 40 steps read: wall p50 12.4 ms, communication 51.5 % (exposed
// 33.1 %)" or why it was not read.
std::string live_step_line(const LiveStepLevel& level);

}  // namespace k25
