// NCCL 2.28's device API as the peer all-reduce backends use it: how many ranks of a communicator can load
// and store each other's memory (its LSA team), and the pointers to every LSA rank's part of a symmetric
// window (ncclGetLsaPointer, read by a one-thread kernel), so that the kernels take plain pointers.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

// The device API (ncclTeamLsa, ncclGetLsaPointer) arrived in NCCL 2.28.
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
#define K25_NCCL_HAS_DEVICE_API 1
#else
#define K25_NCCL_HAS_DEVICE_API 0
#endif

namespace k25::nccl {

#if K25_NCCL_HAS_DEVICE_API
// ncclTeamLsa(comm).nRanks: the ranks whose memory this rank can load and store (NVLink, or PCIe with P2P).
int lsa_team_size(ncclComm_t comm);
// Enqueues on `stream` a kernel that writes out[r] = rank r's part of `window` as this process maps it, r = 0
// .. ranks - 1 (LSA ranks); `out` is device-accessible (mapped host memory). The caller waits for the stream.
cudaError_t enqueue_window_peer_pointers(ncclWindow_t window, int ranks, void** out, cudaStream_t stream);
#endif

}  // namespace k25::nccl
