// The GPU's global timer (nanoseconds), read by the kernels that wait or keep a stream busy.
#pragma once

#include <cstdint>

namespace k25::kernels {

__device__ inline std::uint64_t global_timer_ns() {
  std::uint64_t now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

}  // namespace k25::kernels
