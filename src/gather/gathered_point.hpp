// One point's timings combined over ranks on the coordinator: per trial the slowest rank's time.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/trial_timeline.hpp"
#include "common/rank_context.hpp"
#include "measure/point_samples.hpp"

namespace k25 {

struct GatheredPoint {
  std::vector<double> step_us;        // per trial, max over ranks
  std::vector<double> op_us;          // per (op-pass trial, op), max over ranks
  std::vector<double> rank_step_p50;  // median step time of each rank
  int slowest_rank = 0;               // rank with the largest median step time
  std::uint64_t wrong = 0;            // summed over ranks
  int checked_ops = 0;
  bool interrupted = false;
  std::vector<std::vector<OpSpan>> representative_trial;  // per rank: the op-pass trial with the median total
};

// Collective over all ranks; the result is complete on the coordinator only (other ranks get an empty one).
GatheredPoint gather_point(const PointSamples& samples, const RankContext& context);

}  // namespace k25
