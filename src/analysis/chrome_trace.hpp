// Chrome trace-event timeline (opens in Perfetto or chrome://tracing) of each point's representative trials.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/trial_timeline.hpp"

namespace k25 {

// Tracks per rank within a point: tid = rank x kTracksPerRank + 0 (the timed trial: one slice for the burst),
// + 1 (its host enqueue, where the transport launches asynchronously), + 2 (the per-op pass trial, one slice
// per op).
inline constexpr int kTracksPerRank = 3;

// {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}. Each point is one process (pid = index
// + 1, named "allreduce T=16 eager"); each rank has up to three named tracks (see kTracksPerRank):
//   "rank 3 (host): timed trial #12"  the trial with the median step: one complete event ("ph": "X") from the
//                                     rank's arrival, lasting its step; args {trial, rank, tokens, ops,
//                                     bytes, step_us, arrival_us}. A late rank starts late and, as peers
//                                     waited for it, ends with them: its slice is the shortest.
//   "rank 3 (host): enqueue (host)"   host time to enqueue that burst; args {trial, rank, launch_us}
//   "rank 3 (host): per-op pass ..."  the per-op trial with the median total: one event per op, args
//   {op_index,
//                                     layer, tokens, rank, bytes} (bytes: this rank's AllReduce buffer or
//                                     sent All-to-All bytes)
// ts and dur are microseconds from the rank's own trial start (the exit of the trial's barrier).
nlohmann::json chrome_trace(const std::vector<TrialTimeline>& trials);

}  // namespace k25
