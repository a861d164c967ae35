// The AllReduce burst check on a GPU stream (Transport::verify_burst), one loop for NCCL's AllReduce and the
// peer backends: per op k the check input shifted by k, the op, its count of wrong elements, enqueued one
// after the other with no wait between them, as in a timed burst.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>

#include "plan/collective_op.hpp"

namespace k25::nccl {

// Where one rank's AllReduce reads and writes, and what the check keeps on the device.
struct GpuCheckBuffers {
  void* input = nullptr;
  void* result = nullptr;
  void* out_of_place = nullptr;  // the result buffer, set to NaN before each op; null in place
  std::size_t out_of_place_bytes = 0;
  void* residual = nullptr;  // the epilogue's
  void* weight = nullptr;
  void* norm_out = nullptr;
  float* reference = nullptr;  // 6 x row floats: the CPU's normed rows (add_rmsnorm.hpp's EpilogueReference)
  unsigned long long* wrong = nullptr;
};

// Enqueues the check of every op of `burst` on `stream`, adding to *buffers.wrong (device memory, zeroed
// here): `enqueue_op(k)` enqueues op k; `wait(what)` waits (bounded) for the stream, after the reference of a
// new row length was copied to the device. The caller copies the count back and waits.
void enqueue_burst_check(const OpBurst& burst, const GpuCheckBuffers& buffers, int rank, int ranks,
                         cudaStream_t stream, const std::function<void(std::size_t op_index)>& enqueue_op,
                         const std::function<void(const char* what)>& wait);

}  // namespace k25::nccl
