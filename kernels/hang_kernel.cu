// Test-only kernel behind --inject-hang: occupies the op stream until the host releases it (or a bound
// passes).
#include <cstdint>

#include "global_timer.cuh"
#include "k25_kernels.h"

namespace k25::kernels {
namespace {

__global__ void spin(const volatile int* release_flag, std::uint64_t max_ns) {
  const std::uint64_t start = global_timer_ns();
  while (*release_flag == 0) {
    if (global_timer_ns() - start > max_ns) break;
    __nanosleep(10000);
  }
}

}  // namespace

cudaError_t spin_until_released(const volatile int* release_flag, std::uint64_t max_ns, cudaStream_t stream) {
  spin<<<1, 1, 0, stream>>>(release_flag, max_ns);
  return cudaGetLastError();
}

}  // namespace k25::kernels
