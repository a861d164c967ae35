// The copy kernel of doctor's P2P matrix: one grid-stride loop over 16-byte vectors, then the tail byte by
// byte.
#include <cstdint>

#include "k25_kernels.h"
#include "launch_shape.cuh"

namespace k25::kernels {
namespace {

using detail::blocks_for;
using detail::global_thread;
using detail::grid_threads;
using detail::threads_per_block;

__global__ void copy_vectors(const uint4* src, uint4* dst, std::uint64_t vectors) {
  for (std::uint64_t i = global_thread(); i < vectors; i += grid_threads()) dst[i] = src[i];
}

__global__ void copy_tail(const std::uint8_t* src, std::uint8_t* dst, std::uint64_t bytes) {
  for (std::uint64_t i = global_thread(); i < bytes; i += grid_threads()) dst[i] = src[i];
}

}  // namespace

cudaError_t copy_bytes(const void* src, void* dst, std::uint64_t bytes, cudaStream_t stream) {
  if (bytes == 0) return cudaSuccess;
  const auto from = reinterpret_cast<std::uintptr_t>(src), to = reinterpret_cast<std::uintptr_t>(dst);
  std::uint64_t done = 0;
  if (from % sizeof(uint4) == 0 && to % sizeof(uint4) == 0) {
    const std::uint64_t vectors = bytes / sizeof(uint4);
    if (vectors > 0) {
      copy_vectors<<<blocks_for(vectors), threads_per_block, 0, stream>>>(static_cast<const uint4*>(src),
                                                                          static_cast<uint4*>(dst), vectors);
      done = vectors * sizeof(uint4);
    }
  }
  if (done < bytes)
    copy_tail<<<blocks_for(bytes - done), threads_per_block, 0, stream>>>(
        static_cast<const std::uint8_t*>(src) + done, static_cast<std::uint8_t*>(dst) + done, bytes - done);
  return cudaGetLastError();
}

}  // namespace k25::kernels
