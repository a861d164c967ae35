// Counts and displacements of an All-to-Allv op from its per-peer byte counts.
#include "transport/peer_layout.hpp"

namespace k25 {

PeerLayout peer_layout(const CollectiveOp& op) {
  PeerLayout layout;
  layout.send_bytes = op.send_bytes;
  layout.recv_bytes = op.recv_bytes;
  for (const std::size_t bytes : layout.send_bytes) {
    layout.send_offset.push_back(layout.send_total);
    layout.send_total += bytes;
  }
  for (const std::size_t bytes : layout.recv_bytes) {
    layout.recv_offset.push_back(layout.recv_total);
    layout.recv_total += bytes;
  }
  return layout;
}

}  // namespace k25
