// Where each peer's block of an All-to-Allv lies in this rank's send and receive buffers.
#pragma once

#include <cstddef>
#include <vector>

#include "plan/collective_op.hpp"

namespace k25 {

// Blocks are packed in peer order: send buffer = [block to rank 0][block to rank 1]...; likewise receive.
struct PeerLayout {
  std::vector<std::size_t> send_bytes, send_offset, recv_bytes, recv_offset;
  std::size_t send_total = 0, recv_total = 0;
};

PeerLayout peer_layout(const CollectiveOp& op);

}  // namespace k25
