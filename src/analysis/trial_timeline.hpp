// What the Chrome trace-event timeline shows of one point: a real timed trial of the step on every rank, and
// a trial of the per-op pass, op by op.
#pragma once

#include <string>
#include <vector>

#include "common/vocabulary.hpp"

namespace k25 {

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
