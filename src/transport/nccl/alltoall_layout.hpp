// Per-peer counts and displacements of one All-to-All op on one rank, and the MoE permutation maps around it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "plan/byte_matrix.hpp"

namespace k25::nccl {

// Bytes this rank sends to / receives from each peer, and where each peer's block starts in the send /
// receive buffer. Blocks are packed in peer order: send buffer = [block to rank 0][block to rank 1]...;
// likewise receive.
struct PeerLayout {
  std::vector<std::size_t> send_bytes, send_offset, recv_bytes, recv_offset;
  std::size_t send_total = 0, recv_total = 0;
};

PeerLayout peer_layout(const ByteMatrix& matrix, int rank);

// Token copies are numbered in buffer order (peer by peer). Copy i carries token row i mod tokens: within one
// peer's block the copies are distinct tokens whenever a block holds at most `tokens` copies (one copy per
// token and destination rank), and the combine, being the transpose of the dispatch, returns the copies in
// the same order.

// Dispatch pack map: row_of_copy[i] = i mod tokens, for `copies` copies.
std::vector<std::int32_t> dispatch_rows_of_copies(std::uint64_t copies, int tokens);

// Combine unpack map in CSR form: the copies of token t are index[offsets[t] .. offsets[t + 1]).
struct CopiesOfTokens {
  std::vector<std::int32_t> offsets;  // tokens + 1 entries
  std::vector<std::int32_t> index;    // `copies` entries
};
CopiesOfTokens combine_copies_of_tokens(std::uint64_t copies, int tokens);

}  // namespace k25::nccl
