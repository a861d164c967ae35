// The peer all-reduce backends on GPUs (oneshot, twoshot, oneshot-pull): kernels/peer_allreduce.cu enqueued
// on the nccl transport's stream and timed with its events, over buffers every rank maps of every other:
// NCCL's symmetric window and its device-API load/store pointers where NCCL (2.28 and later) offers them
// between these ranks, else CUDA IPC handles exchanged over MPI. A pair of GPUs that cannot map each other's
// memory makes the backend unavailable, said for that pair. Every wait is bounded: the kernels give up after
// the watchdog's timeout and say which ranks did not arrive (BackendHang).
#pragma once

#include "transport/nccl_backend.hpp"

namespace k25::nccl {

// Collective over context.world(): the backend on `transport` (whose innermost() is the NcclTransport), or
// why it cannot run here, agreed by every rank.
PeerBackendChoice make_peer_allreduce(Transport& transport, const PeerAllreduceOptions& options,
                                      const RankContext& context);

}  // namespace k25::nccl
