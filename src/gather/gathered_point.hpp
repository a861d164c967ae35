// One point's timings combined over ranks on the coordinator: per trial the slowest rank's time.
#pragma once

#include <cstdint>
#include <vector>

#include "common/rank_context.hpp"
#include "common/vocabulary.hpp"
#include "measure/point_samples.hpp"

namespace k25 {

struct GatheredPoint {
  std::vector<double> step_us;        // per trial, max over ranks
  std::vector<double> op_us;          // per (op-pass trial, op), max over ranks
  std::vector<double> launch_us;      // per trial, max over ranks: host time to enqueue the burst
  std::vector<double> comm_us;        // decode mode, per trial, max over ranks: step minus the rank's gaps
  std::vector<double> gap_us;         // decode mode, per trial: the coordinator's measured gaps of the step
  std::vector<double> rank_step_p50;  // median step time of each rank
  std::vector<double>
      rank_arrival_p50;  // median arrival of each rank: barrier exit to its burst's start (host)
  // The rank the others waited for: the latest median arrival. (When all ranks leave a collective together,
  // the late arriver measures the shortest step, so the longest step would name the wrong rank.)
  int slowest_rank = 0;
  double arrival_lead_us = 0;  // slowest rank's median arrival minus the median over ranks of it
  std::uint64_t wrong = 0;     // summed over ranks
  int checked_ops = 0;
  bool interrupted = false;
  int representative_step_trial = -1;         // the timed trial whose step (max over ranks) is the median
  std::vector<StepSpan> representative_step;  // per rank: that trial's arrival, step and launch
  int representative_op_trial = -1;           // the op-pass trial with the median total on the coordinator
  std::vector<std::vector<OpSpan>> representative_trial;  // per rank: that op-pass trial, op by op
};

// Collective over all ranks; the result is complete on the coordinator only (other ranks get an empty one).
GatheredPoint gather_point(const PointSamples& samples, const RankContext& context);

}  // namespace k25
