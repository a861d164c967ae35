// The trace analysis's sizes: each collective kernel's step (the first whose window holds its start) and its
// message size, from the trace (c10d's args, NCCL's NVTX payload) or, for an AllReduce without one, from
// --model and its step's batch (padded to the graph capture sizes where a CUDA graph replayed it).
#include <algorithm>

#include "capture/analysis/trace_work.hpp"
#include "common/collective_kind_names.hpp"
#include "plan/graph_padding.hpp"

namespace k25 {
namespace {

void assign_steps(const TraceWork& work, RankWork& w) {
  const std::vector<GpuActivity>& activities = work.trace.activities;
  w.comm_step.assign(w.comm.size(), -1);
  for (std::size_t s = 0; s < w.steps.size(); ++s) {
    const auto first =
        std::lower_bound(w.comm.begin(), w.comm.end(), w.steps[s].start_ns,
                         [&](std::uint32_t i, std::int64_t t) { return activities[i].start_ns < t; });
    for (auto it = first; it != w.comm.end() && activities[*it].start_ns < w.steps[s].end_ns; ++it) {
      auto& slot = w.comm_step[static_cast<std::size_t>(it - w.comm.begin())];
      if (slot < 0) slot = static_cast<std::int32_t>(s);
    }
  }
}

// The size --model gives an AllReduce of a step whose batch is known; 0 where it gives none.
std::uint64_t model_bytes(const TraceWork& work, const RankWork& w, std::size_t c, const GpuActivity& a) {
  const std::optional<CaptureModel>& model = work.settings.model;
  if (!model || !names_kind(work.classes.kinds()[work.classes.kind_of(a)], CollectiveKind::allreduce) ||
      w.comm_step[c] < 0)
    return 0;
  const std::optional<int>& step_tokens = w.steps[static_cast<std::size_t>(w.comm_step[c])].tokens;
  if (!step_tokens) return 0;
  int tokens = *step_tokens;
  if (a.launch == LaunchMode::graph && !model->graph_sizes.empty() && tokens > 0)
    tokens = pad_to_graph_size(tokens, model->graph_sizes).padded;
  return static_cast<std::uint64_t>(tokens) * model->bytes_per_token();
}

}  // namespace

void collective_sizes(TraceWork& work, RankWork& w, TraceResult& r) {
  assign_steps(work, w);
  w.comm_source.assign(w.comm.size(), kSizeUnknown);
  for (std::size_t c = 0; c < w.comm.size(); ++c) {
    GpuActivity& a = work.trace.activities[w.comm[c]];
    if (a.bytes > 0) {
      w.comm_source[c] = kSizeFromTrace;
    } else if (work.settings.model) {
      a.bytes = model_bytes(work, w, c, a);
      if (a.bytes > 0) w.comm_source[c] = kSizeFromModel;
    }
    (w.comm_source[c] == kSizeFromTrace   ? r.sizes_trace
     : w.comm_source[c] == kSizeFromModel ? r.sizes_model
                                          : r.sizes_unknown) += 1;
    if (w.comm_source[c] == kSizeUnknown && a.launch == LaunchMode::graph) ++work.graph_unknown;
  }
}

}  // namespace k25
