// The AllReduce burst check on a GPU stream.
#include "transport/nccl/gpu_burst_check.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "k25_kernels.h"
#include "transport/add_rmsnorm.hpp"
#include "transport/nccl/cuda_check.hpp"

namespace k25::nccl {
namespace {

kernels::ElementType check_element_type(Dtype dtype) {
  return dtype == Dtype::fp32 ? kernels::ElementType::fp32 : kernels::ElementType::bf16;
}

}  // namespace

void enqueue_burst_check(const OpBurst& burst, const GpuCheckBuffers& buffers, int rank, int ranks,
                         cudaStream_t stream, const std::function<void(std::size_t op_index)>& enqueue_op,
                         const std::function<void(const char* what)>& wait) {
  K25_CUDA_CHECK(cudaMemsetAsync(buffers.wrong, 0, sizeof *buffers.wrong, stream));
  std::size_t reference_row = 0;  // the row length the reference on the device is of
  for (std::size_t k = 0; k < burst.ops.size(); ++k) {
    const CollectiveOp& op = burst.ops[k];
    if (op.kind != CollectiveKind::allreduce)
      throw UsageError(fmt::format("{}: the burst check is the AllReduce burst's", op_words(burst, k)));
    const kernels::ElementType type = check_element_type(op.dtype);
    const std::size_t row = op.epilogue_row_elements();
    if (op.epilogue_rows > 0 && row != reference_row) {
      const EpilogueReference reference = add_rmsnorm_references(ranks, row);
      for (std::size_t index = 0; index < reference.size(); ++index)
        K25_CUDA_CHECK(cudaMemcpyAsync(buffers.reference + index * row, reference[index].data(),
                                       row * sizeof(float), cudaMemcpyHostToDevice, stream));
      wait("copying the epilogue's reference");  // the host's copy of it goes at the end of the scope
      reference_row = row;
    }
    K25_CUDA_CHECK(kernels::fill_allreduce_input(buffers.input, op.count, type, rank, stream, k, ranks));
    // An out-of-place result starts as NaN (all bits set), so an op that wrote nothing is caught.
    if (buffers.out_of_place != nullptr)
      K25_CUDA_CHECK(cudaMemsetAsync(buffers.out_of_place, 0xFF, buffers.out_of_place_bytes, stream));
    if (op.epilogue_rows > 0)
      K25_CUDA_CHECK(kernels::fill_epilogue_inputs(buffers.residual, buffers.weight, op.epilogue_rows, row,
                                                   type, stream));
    enqueue_op(k);
    if (op.epilogue_rows > 0)
      K25_CUDA_CHECK(kernels::count_epilogue_wrong(
          buffers.result, buffers.norm_out, op.epilogue_rows, row, type, ranks, k,
          buffers.reference + epilogue_reference_index(k, 0) * row, buffers.wrong, stream));
    else
      K25_CUDA_CHECK(
          kernels::count_allreduce_wrong(buffers.result, op.count, 0, type, ranks, buffers.wrong, stream, k));
  }
}

}  // namespace k25::nccl
