// One rank's raw timings of one (phase, tokens, mode) point, before the coordinator combines ranks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/vocabulary.hpp"

namespace k25 {

struct PointSamples {
  std::string point;            // "allreduce at 16 tokens, eager": what a timed-out wait on this point names
  std::vector<double> step_us;  // per timed trial: the whole burst on this rank's clock
  std::vector<double> launch_us;   // per timed trial: host time to enqueue the burst (between its timestamps)
  std::vector<double> arrival_us;  // per timed trial: host time from the trial's barrier to the burst's start
  std::vector<double> op_us;  // per-op pass (decode mode: the timed trials), trial-major: op_us[trial * ops +
                              // op]; empty in graph mode
  std::vector<double> gap_us;   // decode mode, per timed trial: this rank's gaps of the step, as measured
  std::vector<double> comm_us;  // decode mode, per timed trial: step minus gap_us
  int op_trials = 0;
  std::vector<std::vector<OpSpan>> op_trial_spans;  // per-op pass: each trial's ops from the trial's start
  std::uint64_t wrong = 0;                          // wrong elements on this rank in the correctness pass
  int checked_ops = 0;                              // ops verified in the correctness pass
  bool interrupted = false;                         // stopped early by SIGINT/SIGTERM
};

}  // namespace k25
