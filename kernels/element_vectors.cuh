// 16-byte vectors of AllReduce elements (8 bf16 or 4 fp32) as fp32 lanes, and a block-wide sum: what the
// epilogue and the peer all-reduce kernels read, sum and write.
#pragma once

#include <cstdint>

#include "../src/transport/check_pattern.hpp"

namespace k25::kernels::detail {

struct Bf16Lanes {
  static constexpr int lanes = 8;
  __device__ static float get(const uint4& v, int i) {
    const unsigned word = (&v.x)[i / 2];
    return __uint_as_float((i % 2 == 0 ? word << 16 : word & 0xFFFF0000u));
  }
  __device__ static void set(uint4& v, int i, float value) {
    unsigned& word = (&v.x)[i / 2];
    const unsigned bits = check::float_to_bf16(value);
    word = i % 2 == 0 ? (word & 0xFFFF0000u) | bits : (word & 0x0000FFFFu) | (bits << 16);
  }
};

struct Fp32Lanes {
  static constexpr int lanes = 4;
  __device__ static float get(const uint4& v, int i) { return __uint_as_float((&v.x)[i]); }
  __device__ static void set(uint4& v, int i, float value) { (&v.x)[i] = __float_as_uint(value); }
};

// acc[i] += lanes of v
template <typename Lanes>
__device__ inline void add_lanes(float (&acc)[8], const uint4& v) {
#pragma unroll
  for (int i = 0; i < Lanes::lanes; ++i) acc[i] += Lanes::get(v, i);
}

template <typename Lanes>
__device__ inline uint4 pack_lanes(const float (&acc)[8]) {
  uint4 v = make_uint4(0, 0, 0, 0);
#pragma unroll
  for (int i = 0; i < Lanes::lanes; ++i) Lanes::set(v, i, acc[i]);
  return v;
}

// The sum of `value` over the block (every thread gets it); `scratch` holds 32 floats of shared memory.
__device__ inline float block_sum(float value, float* scratch) {
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xFFFFFFFFu, value, offset);
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  float total = 0;
  for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w) total += scratch[w];
  return total;
}

}  // namespace k25::kernels::detail
