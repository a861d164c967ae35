// The AllReduce burst check on host memory.
#include "transport/host_burst_check.hpp"

#include <cstring>

#include <fmt/format.h>

#include "common/error.hpp"
#include "transport/add_rmsnorm.hpp"
#include "transport/check_pattern.hpp"
#include "transport/host_elements.hpp"

namespace k25 {

std::uint64_t check_allreduce_burst(const OpBurst& burst, int rank, int ranks,
                                    const HostAllreduceBuffers& buffers,
                                    const std::function<void(std::size_t op_index)>& run_op) {
  std::uint64_t wrong = 0;
  for (std::size_t k = 0; k < burst.ops.size(); ++k) {
    const CollectiveOp& op = burst.ops[k];
    if (op.kind != CollectiveKind::allreduce)
      throw UsageError(fmt::format("{}: the burst check is the AllReduce burst's", op_words(burst, k)));
    for (std::size_t i = 0; i < op.count; ++i)
      store_element(buffers.input, i, op.dtype,
                    static_cast<float>(check::allreduce_burst_input(rank, ranks, i, k)));
    // An out-of-place result starts as NaN (all bits set), so an op that wrote nothing is caught.
    if (buffers.out_of_place != nullptr) std::memset(buffers.out_of_place, 0xFF, buffers.out_of_place_bytes);
    const std::size_t row = op.epilogue_row_elements();
    if (op.epilogue_rows > 0)
      fill_epilogue_inputs(buffers.residual, buffers.weight, op.epilogue_rows, row, op.dtype);
    run_op(k);
    if (op.epilogue_rows > 0)
      wrong += count_epilogue_wrong_host(buffers.result, buffers.norm_out, op.epilogue_rows, row, op.dtype,
                                         ranks, k, add_rmsnorm_references(ranks, row));
    else
      wrong += count_allreduce_wrong_host(buffers.result, op.count, op.dtype, ranks, k);
  }
  return wrong;
}

}  // namespace k25
