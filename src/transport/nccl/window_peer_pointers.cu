// The LSA team's size and a symmetric window's load/store pointers, through NCCL's device API.
#include "transport/nccl/window_peer_pointers.hpp"

#if K25_NCCL_HAS_DEVICE_API
#include <nccl_device.h>

namespace k25::nccl {
namespace {

__global__ void lsa_pointers(ncclWindow_t window, int ranks, void** out) {
  for (int rank = 0; rank < ranks; ++rank) out[rank] = ncclGetLsaPointer(window, 0, rank);
}

}  // namespace

int lsa_team_size(ncclComm_t comm) {
  return ncclTeamLsa(comm).nRanks;
}

cudaError_t enqueue_window_peer_pointers(ncclWindow_t window, int ranks, void** out, cudaStream_t stream) {
  lsa_pointers<<<1, 1, 0, stream>>>(window, ranks, out);
  return cudaGetLastError();
}

}  // namespace k25::nccl
#endif
