// Builds the ops of one decode step: the AllReduce burst of tensor parallelism and the MoE dispatch/combine
// bursts.
#include "plan/decode_step_plan.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.hpp"

#include "plan/routing.hpp"

namespace k25 {

std::size_t allreduce_bytes(const ModelSpec& model, Dtype dtype, int tokens) {
  return static_cast<std::size_t>(tokens) * static_cast<std::size_t>(model.hidden_size) * dtype_bytes(dtype);
}

std::size_t dispatch_bytes_per_copy(const ModelSpec& model) {
  const auto hidden = static_cast<std::size_t>(model.hidden_size);
  if (model.dispatch_dtype != Dtype::fp8) return hidden * dtype_bytes(model.dispatch_dtype);
  const std::size_t scales = hidden / static_cast<std::size_t>(model.fp8_scale_block) * sizeof(float);
  return hidden + scales + static_cast<std::size_t>(model.dispatch_header_bytes);
}

std::size_t combine_bytes_per_copy(const ModelSpec& model) {
  return static_cast<std::size_t>(model.hidden_size) * dtype_bytes(model.combine_dtype);
}

int allreduces_per_step(const ModelSpec& model) {
  if (!model.sequence.empty()) {
    int ops = 0;
    for (const SequenceOp& entry : model.sequence)
      if (entry.kind == CollectiveKind::allreduce)
        ops += entry.per_layer > 0 ? entry.per_layer * model.num_layers : entry.count;
    return ops;
  }
  return model.num_layers * model.allreduces_per_layer + (model.embedding_allreduce ? 1 : 0);
}

std::size_t PhasePlan::max_send_bytes_per_rank() const {
  if (kind != CollectiveKind::alltoallv) {
    // AllGather: each rank sends its part of the gathered buffer; the others send the whole size.
    std::size_t largest = 0;
    for (const auto& op : ops) largest = std::max(largest, op.bytes);
    return kind == CollectiveKind::allgather ? largest / static_cast<std::size_t>(std::max(ranks, 1))
                                             : largest;
  }
  std::uint64_t largest = 0;
  for (const auto& matrix : matrices)
    for (int src = 0; src < matrix.ranks(); ++src) largest = std::max(largest, matrix.row_sum(src));
  return static_cast<std::size_t>(largest);
}

std::size_t PhasePlan::max_recv_bytes_per_rank() const {
  if (kind != CollectiveKind::alltoallv) {
    // ReduceScatter: each rank receives its part of the sum; the others receive the whole size.
    std::size_t largest = 0;
    for (const auto& op : ops) largest = std::max(largest, op.bytes);
    return kind == CollectiveKind::reducescatter ? largest / static_cast<std::size_t>(std::max(ranks, 1))
                                                 : largest;
  }
  std::uint64_t largest = 0;
  for (const auto& matrix : matrices)
    for (int dst = 0; dst < matrix.ranks(); ++dst) largest = std::max(largest, matrix.col_sum(dst));
  return static_cast<std::size_t>(largest);
}

namespace {

Phase phase_of(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::allgather:
      return Phase::allgather;
    case CollectiveKind::reducescatter:
      return Phase::reducescatter;
    default:
      return Phase::allreduce;
  }
}

// Rounds `bytes` up to whole elements on every rank (AllGather and ReduceScatter split the size over the
// ranks): to a multiple of the size whose rank part is one element.
std::uint64_t whole_parts(std::uint64_t bytes, CollectiveKind kind, Dtype dtype, int ranks) {
  const std::uint64_t unit = nccl_tests_bytes(kind, dtype_bytes(dtype), ranks);
  return (bytes + unit - 1) / unit * unit;
}

// One phase per kind, in order of first use, each with its ops in issue order.
std::vector<PhasePlan> tensor_parallel_phases(const ModelSpec& model, const SweepSpec& sweep, int tokens,
                                              int ranks) {
  std::vector<PhasePlan> phases;
  for (const SequencedOp& entry : tensor_parallel_ops(model, sweep, tokens, ranks)) {
    const Phase phase = phase_of(entry.kind);
    auto found =
        std::find_if(phases.begin(), phases.end(), [&](const PhasePlan& p) { return p.phase == phase; });
    if (found == phases.end()) {
      phases.push_back(PhasePlan{phase, tokens, ranks, entry.dtype, 0, {}, {}});
      phases.back().kind = entry.kind;
      found = phases.end() - 1;
    } else if (found->dtype != entry.dtype) {
      throw UsageError(fmt::format("model.sequence: the {} ops mix {} and {}; one element type per kind",
                                   to_string(entry.kind), to_string(found->dtype), to_string(entry.dtype)));
    }
    found->ops.push_back(entry.op);
  }
  return phases;
}

// vLLM's allgather_reducescatter backend: per MoE layer, every rank gathers all ranks' tokens (dispatch) and
// receives its own tokens' sums (combine); equal sizes on every rank.
void gather_scatter_bursts(const ModelSpec& model, int tokens, int ranks, PhasePlan& dispatch,
                           PhasePlan& combine) {
  const std::size_t dispatch_part = static_cast<std::size_t>(tokens) * dispatch_bytes_per_copy(model);
  const std::size_t combine_part = static_cast<std::size_t>(tokens) * combine_bytes_per_copy(model);
  const auto n = static_cast<std::size_t>(ranks);
  dispatch = PhasePlan{Phase::dispatch, tokens, ranks, model.dispatch_dtype, 0, {}, {}};
  combine = PhasePlan{Phase::combine, tokens, ranks, model.combine_dtype, 0, {}, {}};
  dispatch.kind = CollectiveKind::allgather;
  combine.kind = CollectiveKind::reducescatter;
  for (int layer = model.dense_layers; layer < model.num_layers; ++layer) {
    dispatch.ops.push_back({Phase::dispatch, layer, dispatch_part * n, -1, {}});
    combine.ops.push_back({Phase::combine, layer, combine_part * n, -1, {}});
  }
}

// Dispatch and combine of every MoE layer; combine returns each copy along the reverse path.
void alltoall_bursts(const ModelSpec& model, const RoutingSpec& routing, int tokens, int ranks,
                     PhasePlan& dispatch, PhasePlan& combine) {
  dispatch =
      PhasePlan{Phase::dispatch, tokens, ranks, model.dispatch_dtype, dispatch_bytes_per_copy(model), {}, {}};
  combine =
      PhasePlan{Phase::combine, tokens, ranks, model.combine_dtype, combine_bytes_per_copy(model), {}, {}};
  dispatch.kind = combine.kind = CollectiveKind::alltoallv;
  for (int layer = model.dense_layers; layer < model.num_layers; ++layer) {
    const ByteMatrix copies = route_copies(model, routing, tokens, ranks, layer);
    const auto index = static_cast<int>(dispatch.matrices.size());
    dispatch.matrices.push_back(copies.scaled(dispatch.bytes_per_copy));
    combine.matrices.push_back(copies.transposed().scaled(combine.bytes_per_copy));
    dispatch.ops.push_back(
        {Phase::dispatch, layer, static_cast<std::size_t>(dispatch.matrices.back().total()), index, {}});
    combine.ops.push_back(
        {Phase::combine, layer, static_cast<std::size_t>(combine.matrices.back().total()), index, {}});
  }
}

}  // namespace

std::vector<SequencedOp> tensor_parallel_ops(const ModelSpec& model, const SweepSpec& sweep, int tokens,
                                             int ranks) {
  std::vector<SequencedOp> ops;
  if (model.sequence.empty()) {
    const std::size_t bytes = allreduce_bytes(model, sweep.allreduce_dtype, tokens);
    const auto add = [&](int layer) {
      ops.push_back(
          {CollectiveKind::allreduce, sweep.allreduce_dtype, {Phase::allreduce, layer, bytes, -1, {}}});
    };
    if (model.embedding_allreduce) add(-1);
    for (int layer = 0; layer < model.num_layers; ++layer)
      for (int i = 0; i < model.allreduces_per_layer; ++i) add(layer);
    return ops;
  }
  for (const SequenceOp& entry : model.sequence) {
    const std::uint64_t asked =
        entry.bytes_per_token > 0 ? entry.bytes_per_token * static_cast<std::uint64_t>(tokens) : entry.bytes;
    const auto bytes = static_cast<std::size_t>(whole_parts(asked, entry.kind, entry.dtype, ranks));
    const Phase phase = phase_of(entry.kind);
    if (entry.per_layer > 0) {
      for (int layer = 0; layer < model.num_layers; ++layer)
        for (int i = 0; i < entry.per_layer; ++i)
          ops.push_back({entry.kind, entry.dtype, {phase, layer, bytes, -1, entry.name}});
    } else {
      for (int i = 0; i < entry.count; ++i)
        ops.push_back({entry.kind, entry.dtype, {phase, -1, bytes, -1, entry.name}});
    }
  }
  return ops;
}

DecodeStepPlan plan_decode_step(const ModelSpec& model, const RoutingSpec& routing, const SweepSpec& sweep,
                                int tokens, int ranks) {
  DecodeStepPlan plan{tokens, ranks, {}};
  if (sweep.run_allreduce)
    for (PhasePlan& phase : tensor_parallel_phases(model, sweep, tokens, ranks))
      if (!phase.ops.empty()) plan.phases.push_back(std::move(phase));
  if (sweep.run_alltoall && model.moe_layers() > 0) {
    PhasePlan dispatch, combine;
    if (model.ep_backend == EpBackend::allgather_reducescatter)
      gather_scatter_bursts(model, tokens, ranks, dispatch, combine);
    else
      alltoall_bursts(model, routing, tokens, ranks, dispatch, combine);
    plan.phases.push_back(std::move(dispatch));
    plan.phases.push_back(std::move(combine));
  }
  return plan;
}

}  // namespace k25
