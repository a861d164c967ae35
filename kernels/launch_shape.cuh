// Grid sizing shared by k25comm's grid-stride kernels: enough blocks to fill a GPU, never more than the work.
#pragma once

#include <algorithm>
#include <cstdint>

namespace k25::kernels::detail {

constexpr unsigned threads_per_block = 256;
constexpr std::uint64_t max_blocks = 2048;  // about 16 blocks per SM on a 132-SM H100/H200; the loops stride

inline unsigned blocks_for(std::uint64_t work_items) {
  const std::uint64_t wanted = (work_items + threads_per_block - 1) / threads_per_block;
  return static_cast<unsigned>(std::clamp<std::uint64_t>(wanted, 1, max_blocks));
}

// This thread's index in the whole grid, and the grid's thread count (the stride of a grid-stride loop).
__device__ inline std::uint64_t global_thread() {
  return static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline std::uint64_t grid_threads() { return static_cast<std::uint64_t>(gridDim.x) * blockDim.x; }

// Adds a per-thread count into *total with one atomic per warp that saw anything.
__device__ inline void add_warp_count(unsigned long long* total, unsigned long long mine) {
  for (int offset = 16; offset > 0; offset /= 2) mine += __shfl_down_sync(0xFFFFFFFFu, mine, offset);
  if ((threadIdx.x & 31u) == 0 && mine != 0) atomicAdd(total, mine);
}

}  // namespace k25::kernels::detail
