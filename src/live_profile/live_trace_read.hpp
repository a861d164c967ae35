// The live profile's one way into the capture stage: trace files read through analyze_capture_files (the door
// `k25comm capture` reads through) under the rules that command would use for the run's model, one file alone
// (what it says of itself, for the folder watcher; where the door refuses it, the capture's byte loader tells
// whether it is only half written) or a window's files together, and a trace result turned into a level's
// live step.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/capture_trace_document.hpp"
#include "analysis/live_step.hpp"
#include "capture/model/capture_rules.hpp"
#include "config/run_config.hpp"
#include "live_profile/trace_folder_watcher.hpp"

namespace k25 {

struct TraceRead {
  std::optional<TraceResult> trace;
  std::string problem;  // why there is none: the capture's refusal, in its words
};

class LiveTraceReader {
 public:
  // The rules of `k25comm capture --model CONFIG [--kernel-classes serve.profile_kernel_classes]` for the
  // run's config (none: sizes stay unknown, the shipped table only).
  explicit LiveTraceReader(const std::optional<RunConfig>& config);

  // One file alone. Never throws.
  TraceFileFacts facts(const std::string& path) const;

  // Files and folders together, as `k25comm capture PATH...` reads them. Never throws.
  TraceRead read(const std::vector<std::string>& paths) const;

  // Why the capture would refuse every trace under these rules (no kernel-class table found, or one that
  // cannot be read), in its words; empty when traces can be read.
  const std::string& rules_problem() const { return rules_problem_; }

 private:
  CaptureRules rules_;
  std::string rules_problem_;
};

// The level's figures from the trace's headline group (decode with the most steps first, as `k25comm
// capture` heads its answer): status read; failed with a note where the trace holds no step.
void fill_live_step(LiveStepLevel& level, const TraceResult& trace);

// The ranks the trace's files say the run had (the largest world size given); 0 when none says.
int trace_world_size(const TraceResult& trace);

// "k25comm capture INPUTS [--model CONFIG_PATH]": the command that reads the same files the same way.
std::string capture_command_line(const std::string& config_path, const std::string& inputs);

}  // namespace k25
