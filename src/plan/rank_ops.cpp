// One rank's op descriptors of a phase: element counts, per-peer bytes, permutation maps, an injected stall.
#include "plan/rank_ops.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "plan/permute_maps.hpp"

namespace k25 {
namespace {

std::string layer_label(int layer) {
  return layer < 0 ? "embedding" : fmt::format("layer {}", layer);
}

// The MoE permutation around one All-to-All of `phase` (copies of bytes_per_copy bytes).
void add_permute(const PhasePlan& phase, CollectiveOp& op) {
  const std::size_t copy_bytes = phase.bytes_per_copy;
  if (copy_bytes == 0 || phase.tokens <= 0) return;
  const auto tokens = static_cast<std::size_t>(phase.tokens);
  if (phase.phase == Phase::dispatch) {
    std::size_t sent = 0;
    for (const std::size_t bytes : op.send_bytes) sent += bytes;
    op.gather_before =
        RowGather{copy_bytes, tokens, dispatch_rows_of_copies(sent / copy_bytes, phase.tokens)};
  } else if (phase.phase == Phase::combine) {
    std::size_t received = 0;
    for (const std::size_t bytes : op.recv_bytes) received += bytes;
    const CopiesOfTokens map = combine_copies_of_tokens(received / copy_bytes, phase.tokens);
    op.sum_after = SegmentSum{phase.dtype, copy_bytes / dtype_bytes(phase.dtype), map.offsets, map.index};
  }
}

bool stalls(const std::optional<HangSpec>& hang, const PhasePlan& phase, std::size_t op_index, int rank) {
  return hang && hang->phase == phase.phase && hang->tokens == phase.tokens && hang->op == op_index &&
         (hang->rank < 0 || hang->rank == rank);
}

}  // namespace

OpBurst burst_for_rank(const PhasePlan& phase, int rank, const RankOpOptions& options) {
  OpBurst burst;
  burst.what = fmt::format("{} at {} tokens{}", to_string(phase.phase), phase.tokens,
                           options.gaps_us.empty() ? "" : " with decode gaps");
  if (!options.gaps_us.empty() && options.gaps_us.size() != phase.ops.size())
    throw std::invalid_argument(fmt::format("{} decode gaps for the {} ops of {}", options.gaps_us.size(),
                                            phase.ops.size(), burst.what));
  burst.ops.reserve(phase.ops.size());
  for (std::size_t i = 0; i < phase.ops.size(); ++i) {
    const CommOp& planned = phase.ops[i];
    CollectiveOp op;
    op.kind = phase.kind;
    op.dtype = phase.dtype;
    op.label = planned.name.empty() ? layer_label(planned.layer) : planned.name;
    op.stall_before = stalls(options.hang, phase, i, rank);
    if (!options.gaps_us.empty()) op.busy_before_us = options.gaps_us[i];
    if (phase.kind == CollectiveKind::alltoallv) {
      const ByteMatrix& matrix = phase.matrices.at(static_cast<std::size_t>(planned.matrix_index));
      for (int peer = 0; peer < matrix.ranks(); ++peer) {
        op.send_bytes.push_back(static_cast<std::size_t>(matrix.at(rank, peer)));
        op.recv_bytes.push_back(static_cast<std::size_t>(matrix.at(peer, rank)));
      }
      if (options.include_permute) add_permute(phase, op);
    } else {
      // The size counts every rank's part for AllGather and ReduceScatter; NCCL's count is one rank's part.
      const CollectiveKindInfo& info = kind_info(phase.kind);
      const std::size_t parts =
          std::max(info.send_elements(1, phase.ranks), info.recv_elements(1, phase.ranks));
      op.count = planned.bytes / dtype_bytes(phase.dtype) / std::max<std::size_t>(parts, 1);
      // The epilogue normalizes each token's row: one row per token where the op holds whole rows.
      if (options.epilogue == AllreduceEpilogue::add_rmsnorm && phase.kind == CollectiveKind::allreduce &&
          op.count > 0)
        op.epilogue_rows = phase.tokens > 0 && op.count % static_cast<std::size_t>(phase.tokens) == 0
                               ? static_cast<std::size_t>(phase.tokens)
                               : 1;
    }
    burst.ops.push_back(std::move(op));
  }
  return burst;
}

}  // namespace k25
