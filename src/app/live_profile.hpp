// After the serve phase: the trace files of each recorded profile window (the engine's own profiler), waited
// for until complete and read with the capture's readers and analysis into the report's live step per level.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analysis/live_step.hpp"
#include "analysis/run_report.hpp"
#include "config/run_config.hpp"
#include "serve/profile_window.hpp"

namespace k25 {

// Called as each level's live step is known (read, unread or failed): the journal and the console.
using LiveStepSink = std::function<void(const LiveStepLevel& level)>;

// One LiveStepLevel per window that was recorded. Per window: the files of serve.profile_dir newer than its
// start and not another window's, waited for (at most serve.profile_wait_s) until they stop growing, read
// whole (a gzip stream complete, a JSON closed) and hold as many ranks as their world size says; linked
// under OUT/live-profile/cC/ so that `k25comm capture` reads the same files. A folder not readable here
// gives status "unread" and the capture command; files that never complete or cannot be read give "failed"
// with a note. Never throws for what the traces hold.
LiveProfile read_live_profile(const RunConfig& config, const ServeProfile& profile,
                              const LiveStepSink& on_level);

// `k25comm report RUN/report.json --capture DIR...`: each input ("C:DIR" for level C, or DIR for the next
// profiled level, by concurrency, whose live step was not read) read as `k25comm capture DIR` reads it (the
// model from the report's effective config) into report.live_profile. Throws UsageError naming the input for
// a folder that cannot be read and for an input no profiled level is left for.
void join_live_captures(RunReport& report, const std::vector<std::string>& inputs);

}  // namespace k25
