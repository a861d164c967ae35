// Chrome trace-event timeline (opens in Perfetto or chrome://tracing) of representative trials, op by op per
// rank.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/trial_timeline.hpp"

namespace k25 {

// {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}. Each trial is one process (pid = index
// + 1, named "allreduce T=16 eager"), each rank one thread of it (tid = rank, named "rank 3 (host)"), each op
// one complete event ("ph": "X") with ts and dur in microseconds from the rank's own trial start, args
// {op_index, layer, tokens, rank}. Gaps between slices are time a rank spent outside the collective (waiting
// for peers shows as a longer slice on the early ranks).
nlohmann::json chrome_trace(const std::vector<TrialTimeline>& trials);

}  // namespace k25
