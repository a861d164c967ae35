// Doctor's measured P2P matrix: copies between every ordered pair of the GPUs this process sees, with the
// copy kernel (push and pull) and with cudaMemcpyPeerAsync, timed with CUDA events.
#pragma once

#include "transport/p2p_measurement.hpp"

namespace k25::nccl {

// Never throws: a CUDA error ends the measurement with status "failed: ..." naming the call. No GPU: status
// "no GPU visible". One GPU: its own device-to-device copy (0 -> 0), said as a bound in the note.
P2pMeasurement measure_p2p_copies();

}  // namespace k25::nccl
