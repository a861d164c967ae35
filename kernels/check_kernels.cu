// Fill and verify kernels of the correctness pass: exactly predictable AllReduce and All-to-All data on the
// GPU.
#include <cstdint>

#include "../src/transport/check_pattern.hpp"
#include "k25_kernels.h"
#include "launch_shape.cuh"

namespace k25::kernels {
namespace {

using detail::add_warp_count;
using detail::blocks_for;
using detail::global_thread;
using detail::grid_threads;
using detail::threads_per_block;

__global__ void fill_allreduce_bf16(std::uint16_t* out, std::uint64_t n, int rank, int ranks,
                                    std::uint64_t op) {
  for (std::uint64_t i = global_thread(); i < n; i += grid_threads())
    out[i] = check::float_to_bf16(static_cast<float>(check::allreduce_burst_input(rank, ranks, i, op)));
}

__global__ void fill_allreduce_fp32(float* out, std::uint64_t n, int rank, int ranks, std::uint64_t op) {
  for (std::uint64_t i = global_thread(); i < n; i += grid_threads())
    out[i] = static_cast<float>(check::allreduce_burst_input(rank, ranks, i, op));
}

// Every thread must reach add_warp_count (it shuffles over the full warp), so the loop bound is uniform per
// warp.
__global__ void count_allreduce_bf16(const std::uint16_t* in, std::uint64_t n, std::uint64_t first, int ranks,
                                     std::uint64_t op, unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (std::uint64_t i = global_thread(); i < n; i += grid_threads())
    if (!(check::bf16_to_float(in[i]) ==
          static_cast<float>(check::allreduce_burst_expected(ranks, first + i, op))))
      ++mine;
  add_warp_count(wrong, mine);
}

__global__ void count_allreduce_fp32(const float* in, std::uint64_t n, std::uint64_t first, int ranks,
                                     std::uint64_t op, unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (std::uint64_t i = global_thread(); i < n; i += grid_threads())
    if (!(in[i] == static_cast<float>(check::allreduce_burst_expected(ranks, first + i, op)))) ++mine;
  add_warp_count(wrong, mine);
}

__global__ void fill_alltoall(std::uint8_t* out, std::uint64_t n, int src, int dst) {
  for (std::uint64_t j = global_thread(); j < n; j += grid_threads())
    out[j] = check::alltoall_byte(src, dst, j);
}

__global__ void count_alltoall(const std::uint8_t* in, std::uint64_t n, int src, int dst,
                               unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (std::uint64_t j = global_thread(); j < n; j += grid_threads())
    if (in[j] != check::alltoall_byte(src, dst, j)) ++mine;
  add_warp_count(wrong, mine);
}

}  // namespace

cudaError_t fill_allreduce_input(void* buffer, std::uint64_t elements, ElementType type, int rank,
                                 cudaStream_t stream, std::uint64_t op, int ranks) {
  if (elements == 0) return cudaSuccess;
  const unsigned blocks = blocks_for(elements);
  if (type == ElementType::bf16)
    fill_allreduce_bf16<<<blocks, threads_per_block, 0, stream>>>(static_cast<std::uint16_t*>(buffer),
                                                                  elements, rank, ranks, op);
  else
    fill_allreduce_fp32<<<blocks, threads_per_block, 0, stream>>>(static_cast<float*>(buffer), elements, rank,
                                                                  ranks, op);
  return cudaGetLastError();
}

cudaError_t count_allreduce_wrong(const void* buffer, std::uint64_t elements, std::uint64_t first_index,
                                  ElementType type, int ranks, unsigned long long* wrong_count,
                                  cudaStream_t stream, std::uint64_t op) {
  if (elements == 0) return cudaSuccess;
  const unsigned blocks = blocks_for(elements);
  if (type == ElementType::bf16)
    count_allreduce_bf16<<<blocks, threads_per_block, 0, stream>>>(
        static_cast<const std::uint16_t*>(buffer), elements, first_index, ranks, op, wrong_count);
  else
    count_allreduce_fp32<<<blocks, threads_per_block, 0, stream>>>(
        static_cast<const float*>(buffer), elements, first_index, ranks, op, wrong_count);
  return cudaGetLastError();
}

cudaError_t fill_alltoall_block(std::uint8_t* block, std::uint64_t bytes, int src, int dst,
                                cudaStream_t stream) {
  if (bytes == 0) return cudaSuccess;
  fill_alltoall<<<blocks_for(bytes), threads_per_block, 0, stream>>>(block, bytes, src, dst);
  return cudaGetLastError();
}

cudaError_t count_alltoall_block_wrong(const std::uint8_t* block, std::uint64_t bytes, int src, int dst,
                                       unsigned long long* wrong_count, cudaStream_t stream) {
  if (bytes == 0) return cudaSuccess;
  count_alltoall<<<blocks_for(bytes), threads_per_block, 0, stream>>>(block, bytes, src, dst, wrong_count);
  return cudaGetLastError();
}

}  // namespace k25::kernels
