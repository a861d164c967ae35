// The AllReduce burst check on host memory (Transport::verify_burst), one loop for the host transport's
// MPI_Allreduce and its peer backends: op k's input is check_pattern.hpp's burst input of op k, and its
// result is checked before op k + 1 runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "plan/collective_op.hpp"

namespace k25 {

// Where one rank's AllReduce reads and writes on host memory.
struct HostAllreduceBuffers {
  std::byte* input = nullptr;
  std::byte* result = nullptr;
  std::byte* out_of_place = nullptr;  // the result buffer, set to NaN before each op; null in place
  std::size_t out_of_place_bytes = 0;
  std::byte* residual = nullptr;  // the epilogue's (where an op has one)
  std::byte* weight = nullptr;
  std::byte* norm_out = nullptr;
};

// Runs `run_op(k)` for every op of `burst` (AllReduces) and returns their wrong elements.
std::uint64_t check_allreduce_burst(const OpBurst& burst, int rank, int ranks,
                                    const HostAllreduceBuffers& buffers,
                                    const std::function<void(std::size_t op_index)>& run_op);

}  // namespace k25
