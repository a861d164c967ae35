// Builds the ops of one decode step: the AllReduce burst of tensor parallelism and the MoE dispatch/combine
// bursts.
#include "plan/decode_step_plan.hpp"

#include <algorithm>

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
  return model.num_layers * model.allreduces_per_layer + (model.embedding_allreduce ? 1 : 0);
}

std::size_t PhasePlan::max_send_bytes_per_rank() const {
  if (phase == Phase::allreduce) {
    std::size_t largest = 0;
    for (const auto& op : ops) largest = std::max(largest, op.bytes);
    return largest;
  }
  std::uint64_t largest = 0;
  for (const auto& matrix : matrices)
    for (int src = 0; src < matrix.ranks(); ++src) largest = std::max(largest, matrix.row_sum(src));
  return static_cast<std::size_t>(largest);
}

std::size_t PhasePlan::max_recv_bytes_per_rank() const {
  if (phase == Phase::allreduce) return max_send_bytes_per_rank();
  std::uint64_t largest = 0;
  for (const auto& matrix : matrices)
    for (int dst = 0; dst < matrix.ranks(); ++dst) largest = std::max(largest, matrix.col_sum(dst));
  return static_cast<std::size_t>(largest);
}

namespace {

PhasePlan allreduce_burst(const ModelSpec& model, const SweepSpec& sweep, int tokens, int ranks) {
  PhasePlan plan{Phase::allreduce, tokens, ranks, sweep.allreduce_dtype, 0, {}, {}};
  const std::size_t bytes = allreduce_bytes(model, sweep.allreduce_dtype, tokens);
  if (model.embedding_allreduce) plan.ops.push_back({Phase::allreduce, -1, bytes, -1});
  for (int layer = 0; layer < model.num_layers; ++layer)
    for (int i = 0; i < model.allreduces_per_layer; ++i)
      plan.ops.push_back({Phase::allreduce, layer, bytes, -1});
  return plan;
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
        {Phase::dispatch, layer, static_cast<std::size_t>(dispatch.matrices.back().total()), index});
    combine.ops.push_back(
        {Phase::combine, layer, static_cast<std::size_t>(combine.matrices.back().total()), index});
  }
}

}  // namespace

DecodeStepPlan plan_decode_step(const ModelSpec& model, const RoutingSpec& routing, const SweepSpec& sweep,
                                int tokens, int ranks) {
  DecodeStepPlan plan{tokens, ranks, {}};
  if (sweep.run_allreduce && allreduces_per_step(model) > 0)
    plan.phases.push_back(allreduce_burst(model, sweep, tokens, ranks));
  if (sweep.run_alltoall && model.moe_layers() > 0) {
    PhasePlan dispatch, combine;
    alltoall_bursts(model, routing, tokens, ranks, dispatch, combine);
    plan.phases.push_back(std::move(dispatch));
    plan.phases.push_back(std::move(combine));
  }
  return plan;
}

}  // namespace k25
