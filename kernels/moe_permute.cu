// MoE dispatch pack (gather token rows by destination rank into the send buffer) and combine unpack (scatter
// the returned copies back to their tokens, summing the copies of a token), as expert parallelism does around
// its All-to-All.
#include <cstdint>

#include "../src/transport/check_pattern.hpp"
#include "k25_kernels.h"
#include "launch_shape.cuh"

namespace k25::kernels {
namespace {

using detail::blocks_for;
using detail::global_thread;
using detail::grid_threads;
using detail::threads_per_block;


// One work item is one `Unit` of one copy: units_per_row units per row, consecutive threads walk along a row.
template <typename Unit>
__global__ void pack_rows(const Unit* token_rows, const std::int32_t* row_of_copy, std::uint64_t copies,
                          std::uint64_t units_per_row, Unit* send) {
  const std::uint64_t total = copies * units_per_row;
  for (std::uint64_t i = global_thread(); i < total; i += grid_threads()) {
    const std::uint64_t copy = i / units_per_row;
    const std::uint64_t unit = i - copy * units_per_row;
    const auto row = static_cast<std::uint64_t>(row_of_copy[copy]);
    send[i] = token_rows[row * units_per_row + unit];
  }
}

__device__ inline float load(const std::uint16_t* p, std::uint64_t i) {
  return check::bf16_to_float(p[i]);
}
__device__ inline float load(const float* p, std::uint64_t i) {
  return p[i];
}
__device__ inline void store(std::uint16_t* p, std::uint64_t i, float v) {
  p[i] = check::float_to_bf16(v);
}
__device__ inline void store(float* p, std::uint64_t i, float v) {
  p[i] = v;
}

template <typename Element>
__global__ void unpack_sum(const Element* recv, const std::int32_t* copy_offsets,
                           const std::int32_t* copy_index, std::uint64_t tokens, std::uint64_t elements,
                           Element* token_rows) {
  const std::uint64_t total = tokens * elements;
  for (std::uint64_t i = global_thread(); i < total; i += grid_threads()) {
    const std::uint64_t token = i / elements;
    const std::uint64_t element = i - token * elements;
    float sum = 0.0f;
    for (std::int32_t k = copy_offsets[token]; k < copy_offsets[token + 1]; ++k)
      sum += load(recv, static_cast<std::uint64_t>(copy_index[k]) * elements + element);
    store(token_rows, i, sum);
  }
}

bool aligned16(const void* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0;
}

}  // namespace

cudaError_t moe_dispatch_pack(const std::uint8_t* token_rows, const std::int32_t* row_of_copy,
                              std::uint64_t copies, std::uint64_t row_bytes, std::uint8_t* send,
                              cudaStream_t stream) {
  if (copies == 0 || row_bytes == 0) return cudaSuccess;
  if (row_bytes % 16 == 0 && aligned16(token_rows) && aligned16(send)) {
    const std::uint64_t units = row_bytes / 16;
    pack_rows<uint4><<<blocks_for(copies * units), threads_per_block, 0, stream>>>(
        reinterpret_cast<const uint4*>(token_rows), row_of_copy, copies, units,
        reinterpret_cast<uint4*>(send));
  } else {
    pack_rows<std::uint8_t><<<blocks_for(copies * row_bytes), threads_per_block, 0, stream>>>(
        token_rows, row_of_copy, copies, row_bytes, send);
  }
  return cudaGetLastError();
}

cudaError_t moe_combine_unpack(const void* recv, const std::int32_t* copy_offsets,
                               const std::int32_t* copy_index, std::uint64_t tokens, std::uint64_t elements,
                               ElementType type, void* token_rows, cudaStream_t stream) {
  if (tokens == 0 || elements == 0) return cudaSuccess;
  const unsigned blocks = blocks_for(tokens * elements);
  if (type == ElementType::bf16)
    unpack_sum<std::uint16_t><<<blocks, threads_per_block, 0, stream>>>(
        static_cast<const std::uint16_t*>(recv), copy_offsets, copy_index, tokens, elements,
        static_cast<std::uint16_t*>(token_rows));
  else
    unpack_sum<float><<<blocks, threads_per_block, 0, stream>>>(static_cast<const float*>(recv), copy_offsets,
                                                                copy_index, tokens, elements,
                                                                static_cast<float*>(token_rows));
  return cudaGetLastError();
}

}  // namespace k25::kernels
