// Counts, displacements and permutation maps of All-to-All ops, from the plan's rank-to-rank byte matrices.
#include "transport/nccl/alltoall_layout.hpp"

namespace k25::nccl {

PeerLayout peer_layout(const ByteMatrix& matrix, int rank) {
  const auto ranks = static_cast<std::size_t>(matrix.ranks());
  PeerLayout layout;
  layout.send_bytes.resize(ranks);
  layout.send_offset.resize(ranks);
  layout.recv_bytes.resize(ranks);
  layout.recv_offset.resize(ranks);
  for (std::size_t peer = 0; peer < ranks; ++peer) {
    const int p = static_cast<int>(peer);
    layout.send_offset[peer] = layout.send_total;
    layout.send_bytes[peer] = static_cast<std::size_t>(matrix.at(rank, p));
    layout.send_total += layout.send_bytes[peer];
    layout.recv_offset[peer] = layout.recv_total;
    layout.recv_bytes[peer] = static_cast<std::size_t>(matrix.at(p, rank));
    layout.recv_total += layout.recv_bytes[peer];
  }
  return layout;
}

std::vector<std::int32_t> dispatch_rows_of_copies(std::uint64_t copies, int tokens) {
  std::vector<std::int32_t> rows(copies);
  for (std::uint64_t i = 0; i < copies; ++i)
    rows[i] = static_cast<std::int32_t>(i % static_cast<std::uint64_t>(tokens));
  return rows;
}

CopiesOfTokens combine_copies_of_tokens(std::uint64_t copies, int tokens) {
  const auto t_count = static_cast<std::uint64_t>(tokens);
  CopiesOfTokens map;
  map.offsets.resize(t_count + 1, 0);
  map.index.reserve(copies);
  for (std::uint64_t t = 0; t < t_count; ++t) {
    map.offsets[t] = static_cast<std::int32_t>(map.index.size());
    for (std::uint64_t i = t; i < copies; i += t_count) map.index.push_back(static_cast<std::int32_t>(i));
  }
  map.offsets[t_count] = static_cast<std::int32_t>(map.index.size());
  return map;
}

}  // namespace k25::nccl
