// Defaults of the transport interface (graph capture, replay and stream holds are refused where a transport
// lacks them) and the buffer sizes a run's bursts need.
#include "transport/transport.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace k25 {

BufferSizes largest_buffers(const std::vector<OpBurst>& bursts, int ranks) {
  BufferSizes sizes;
  for (const OpBurst& burst : bursts)
    for (const CollectiveOp& op : burst.ops) {
      sizes.send_bytes = std::max(sizes.send_bytes, op.send_buffer_bytes(ranks));
      sizes.recv_bytes = std::max(sizes.recv_bytes, op.recv_buffer_bytes(ranks));
      if (op.gather_before)
        sizes.rows_bytes =
            std::max(sizes.rows_bytes, op.gather_before->source_rows * op.gather_before->row_bytes);
      if (op.epilogue_rows > 0) {
        sizes.epilogue_bytes = std::max(sizes.epilogue_bytes, op.count * dtype_bytes(op.dtype));
        sizes.epilogue_row_bytes =
            std::max(sizes.epilogue_row_bytes, op.epilogue_row_elements() * dtype_bytes(op.dtype));
      }
      if (op.sum_after && !op.sum_after->offsets.empty())
        sizes.rows_bytes =
            std::max(sizes.rows_bytes, (op.sum_after->offsets.size() - 1) * op.sum_after->row_elements *
                                           dtype_bytes(op.sum_after->dtype));
    }
  return sizes;
}

std::unique_ptr<CapturedBurst> Transport::capture(BurstId) {
  throw UsageError("the " + name() + " transport has no graph mode");
}

void Transport::replay(CapturedBurst&) {
  throw UsageError("the " + name() + " transport has no graph mode");
}

std::uint64_t Transport::verify_burst(BurstId) {
  throw UsageError("the " + name() + " transport has no AllReduce burst check");
}

void Transport::hold_stream() {
  throw UsageError("the " + name() + " transport has no device-only timing (no GPU stream to hold)");
}

void Transport::release_stream() {
  throw UsageError("the " + name() + " transport has no device-only timing (no GPU stream to hold)");
}

}  // namespace k25
