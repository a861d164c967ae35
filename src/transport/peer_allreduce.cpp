// The peer all-reduce backends' buffer layout, two-shot split and the ops they take.
#include "transport/peer_allreduce.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace k25 {
namespace {

std::size_t round_up(std::size_t value, std::size_t unit) {
  return (value + unit - 1) / unit * unit;
}

}  // namespace

PeerBufferLayout peer_buffer_layout(AllreduceBackend algorithm, int ranks, std::size_t max_op_bytes,
                                    std::size_t max_row_bytes, int blocks) {
  PeerBufferLayout layout;
  const auto n = static_cast<std::size_t>(std::max(ranks, 1));
  layout.flags_offset = 0;
  layout.slots_offset =
      static_cast<std::size_t>(std::max(blocks, 1)) * kPeerBarriers * kMaxPeerRanks * kPeerFlagStride;
  const std::size_t op = round_up(std::max<std::size_t>(max_op_bytes, kPeerVectorBytes), kPeerVectorBytes);
  switch (algorithm) {
    case AllreduceBackend::twoshot:
      // A chunk is a share of the vectors, or with the epilogue of the rows: at most one row (or vector)
      // more.
      layout.slot_bytes = round_up(op / n + std::max(max_row_bytes, kPeerVectorBytes), kPeerVectorBytes);
      layout.slots = ranks;
      layout.gather_bytes = op;
      break;
    case AllreduceBackend::oneshot_pull:
      layout.slot_bytes = op;
      layout.slots = 1;
      break;
    default:
      layout.slot_bytes = op;
      layout.slots = ranks;
      break;
  }
  layout.gather_offset = layout.slot_offset(layout.slots);
  const std::size_t gather = layout.gather_bytes * (max_row_bytes > 0 ? 2 : 1);
  layout.total_bytes = round_up(layout.gather_offset + gather, 4096);
  return layout;
}

PeerChunk twoshot_chunk(int rank, int ranks, std::size_t count, Dtype dtype, std::size_t rows) {
  const auto n = static_cast<std::size_t>(std::max(ranks, 1));
  const auto r = static_cast<std::size_t>(rank);
  // Whole rows with the epilogue, else whole 16-byte vectors (the last one may be short on the host).
  const std::size_t unit = rows > 0 ? count / rows : kPeerVectorBytes / dtype_bytes(dtype);
  const std::size_t units = rows > 0 ? rows : (count + unit - 1) / unit;
  const std::size_t first_unit = units * r / n, end_unit = units * (r + 1) / n;
  PeerChunk chunk;
  chunk.first = std::min(first_unit * unit, count);
  chunk.count = std::min(end_unit * unit, count) - chunk.first;
  return chunk;
}

std::optional<std::string> peer_op_refusal(const PeerAllreduceOptions& options, const OpBurst& burst,
                                           std::size_t op_index, bool gpu) {
  const CollectiveOp& op = burst.ops.at(op_index);
  const std::string name = to_string(options.algorithm);
  if (op.kind != CollectiveKind::allreduce)
    return fmt::format("{} runs AllReduces only, and {} is an {}", name, op_words(burst, op_index),
                       to_string(op.kind));
  if (op.dtype != Dtype::bf16 && op.dtype != Dtype::fp32)
    return fmt::format("{} sums bf16 or fp32, not {}", name, to_string(op.dtype));
  const std::size_t bytes = op.count * dtype_bytes(op.dtype);
  if (bytes > options.max_op_bytes)
    return fmt::format(
        "{}: {} bytes per op is above its {}-byte buffer (transport.peer_max_bytes, --peer-max-bytes)", name,
        bytes, options.max_op_bytes);
  if (gpu && bytes % kPeerVectorBytes != 0)
    return fmt::format("{}: {} bytes per op is not a whole number of the kernels' 16-byte vectors", name,
                       bytes);
  return std::nullopt;
}

std::string rank_list(unsigned mask) {
  std::vector<std::string> ranks;
  for (int rank = 0; rank < 32; ++rank)
    if ((mask >> rank) & 1u) ranks.push_back(std::to_string(rank));
  if (ranks.empty()) return "no rank";
  if (ranks.size() == 1) return "rank " + ranks.front();
  std::string text = "ranks " + ranks.front();
  for (std::size_t i = 1; i < ranks.size(); ++i) text += (i + 1 == ranks.size() ? " and " : ", ") + ranks[i];
  return text;
}

}  // namespace k25
