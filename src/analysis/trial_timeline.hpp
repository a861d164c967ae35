// What the Chrome trace-event timeline shows of one point: a real timed trial of the step on every rank, and
// a trial of the per-op pass, op by op.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/run_config.hpp"

namespace k25 {

struct OpSpan {
  int op_index = 0;
  int layer = 0;
  double start_us = 0;  // from the rank's trial start (its own clock, after the trial's barrier)
  double end_us = 0;
  std::uint64_t bytes =
      0;  // this rank's bytes of the op (AllReduce: reduced; All-to-All: sent); 0: not known
};

// One rank's part of a timed trial of the whole step, from the exit of the trial's barrier on that rank.
struct StepSpan {
  double arrival_us = 0;            // barrier exit to the burst's first timestamp (host clock)
  double step_us = 0;               // the burst between its two timestamps (the transport's clock)
  std::optional<double> launch_us;  // host time to enqueue the burst; absent where the launch is the step
  std::uint64_t bytes = 0;          // this rank's bytes over the whole burst
};

struct TrialTimeline {
  Phase phase = Phase::allreduce;
  int tokens = 0;
  TimingMode mode = TimingMode::eager;
  std::vector<std::string> rank_hosts;  // index = rank
  int ops_per_step = 0;
  int step_trial = -1;                     // index of the timed trial shown (median step); -1: none
  std::vector<StepSpan> step;              // that trial, index = rank
  int op_trial = -1;                       // index of the per-op pass trial shown; -1: no per-op pass
  std::vector<std::vector<OpSpan>> ranks;  // that trial's ops, index = rank
};

}  // namespace k25
