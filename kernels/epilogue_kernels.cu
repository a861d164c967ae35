// The AllReduce's residual add + RMSNorm as a separate kernel (what an engine runs after NCCL), its check
// data and its check against the CPU's reference.
#include <cstdint>

#include "../src/transport/check_pattern.hpp"
#include "element_vectors.cuh"
#include "k25_kernels.h"
#include "launch_shape.cuh"

namespace k25::kernels {
namespace {

using detail::add_warp_count;
using detail::blocks_for;
using detail::global_thread;
using detail::grid_threads;
using detail::threads_per_block;

__device__ float load_as_float(const void* base, std::uint64_t i, ElementType type) {
  if (type == ElementType::fp32) return static_cast<const float*>(base)[i];
  return check::bf16_to_float(static_cast<const std::uint16_t*>(base)[i]);
}

__device__ void store_as(void* base, std::uint64_t i, ElementType type, float value) {
  if (type == ElementType::fp32)
    static_cast<float*>(base)[i] = value;
  else
    static_cast<std::uint16_t*>(base)[i] = check::float_to_bf16(value);
}

// One block per row: the residual added and stored (rounded to the type), the squares of the stored values
// summed, then the row normed.
__global__ void add_rmsnorm_rows(void* sum, const void* residual, const void* weight, void* norm_out,
                                 std::uint64_t row_elements, ElementType type) {
  __shared__ float scratch[32];
  const std::uint64_t base = static_cast<std::uint64_t>(blockIdx.x) * row_elements;
  float squares = 0;
  for (std::uint64_t j = threadIdx.x; j < row_elements; j += blockDim.x) {
    store_as(sum, base + j, type,
             load_as_float(sum, base + j, type) + load_as_float(residual, base + j, type));
    const float stored = load_as_float(sum, base + j, type);
    squares += stored * stored;
  }
  const float total = detail::block_sum(squares, scratch);
  const float scale = rsqrtf(total / static_cast<float>(row_elements) + check::kEpilogueEps);
  for (std::uint64_t j = threadIdx.x; j < row_elements; j += blockDim.x)
    store_as(norm_out, base + j, type,
             load_as_float(sum, base + j, type) * scale * load_as_float(weight, j, type));
}

__global__ void fill_epilogue(void* residual, void* weight, std::uint64_t rows, std::uint64_t row_elements,
                              ElementType type) {
  for (std::uint64_t i = global_thread(); i < rows * row_elements; i += grid_threads())
    store_as(residual, i, type, static_cast<float>(check::epilogue_residual(i % row_elements)));
  for (std::uint64_t j = global_thread(); j < row_elements; j += grid_threads())
    store_as(weight, j, type, check::epilogue_weight(j));
}

__global__ void count_epilogue(const void* result, const void* norm_out, std::uint64_t rows,
                               std::uint64_t row_elements, ElementType type, int ranks, std::uint64_t op,
                               const float* reference, unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (std::uint64_t i = global_thread(); i < rows * row_elements; i += grid_threads()) {
    const std::uint64_t row = i / row_elements, j = i % row_elements;
    const float sum =
        static_cast<float>(check::allreduce_burst_expected(ranks, i, op) + check::epilogue_residual(j));
    const float expected = reference[((row * row_elements) % 2) * row_elements + j];
    const float normed = load_as_float(norm_out, i, type);
    if (!(load_as_float(result, i, type) == sum) || !(fabsf(normed - expected) <= fabsf(expected) / 128.0f))
      ++mine;
  }
  add_warp_count(wrong, mine);
}

}  // namespace

cudaError_t add_rmsnorm(void* sum, const void* residual, const void* weight, void* norm_out,
                        std::uint64_t rows, std::uint64_t row_elements, ElementType type,
                        cudaStream_t stream) {
  if (rows == 0 || row_elements == 0) return cudaSuccess;
  add_rmsnorm_rows<<<static_cast<unsigned>(rows), threads_per_block, 0, stream>>>(
      sum, residual, weight, norm_out, row_elements, type);
  return cudaGetLastError();
}

cudaError_t fill_epilogue_inputs(void* residual, void* weight, std::uint64_t rows, std::uint64_t row_elements,
                                 ElementType type, cudaStream_t stream) {
  if (rows == 0 || row_elements == 0) return cudaSuccess;
  fill_epilogue<<<blocks_for(rows * row_elements), threads_per_block, 0, stream>>>(residual, weight, rows,
                                                                                   row_elements, type);
  return cudaGetLastError();
}

cudaError_t count_epilogue_wrong(const void* result, const void* norm_out, std::uint64_t rows,
                                 std::uint64_t row_elements, ElementType type, int ranks, std::uint64_t op,
                                 const float* reference, unsigned long long* wrong_count,
                                 cudaStream_t stream) {
  if (rows == 0 || row_elements == 0) return cudaSuccess;
  count_epilogue<<<blocks_for(rows * row_elements), threads_per_block, 0, stream>>>(
      result, norm_out, rows, row_elements, type, ranks, op, reference, wrong_count);
  return cudaGetLastError();
}

}  // namespace k25::kernels
