// One representative trial, op by op on every rank: the input of the Chrome trace-event timeline.
#pragma once

#include <string>
#include <vector>

#include "config/run_config.hpp"

namespace k25 {

struct OpSpan {
  int op_index = 0;
  int layer = 0;
  double start_us = 0;   // from the rank's trial start (its own clock, after the trial's barrier)
  double end_us = 0;
};

struct TrialTimeline {
  Phase phase = Phase::allreduce;
  int tokens = 0;
  TimingMode mode = TimingMode::eager;
  std::vector<std::string> rank_hosts;       // index = rank
  std::vector<std::vector<OpSpan>> ranks;    // index = rank
};

}  // namespace k25
