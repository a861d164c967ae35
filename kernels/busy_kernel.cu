// The decode timing mode's compute gap: a one-thread kernel that keeps its stream busy for a set time.
#include <cstdint>

#include "global_timer.cuh"
#include "k25_kernels.h"

namespace k25::kernels {
namespace {

// Spins on the global timer without sleeping: a sleep's granularity would lengthen short gaps. The timer
// advances in ticks (about a microsecond on many GPUs), so a start read anywhere inside a tick could end the
// wait up to one tick early; the wait therefore starts at the first tick edge it sees and lasts at least `ns`
// (at most one tick more), as the decode check's measured >= configured gaps require.
__global__ void busy(std::uint64_t ns) {
  const std::uint64_t first = global_timer_ns();
  std::uint64_t start = first;
  while (start == first) start = global_timer_ns();
  while (global_timer_ns() - start < ns) {
  }
}

}  // namespace

cudaError_t busy_for(std::uint64_t ns, cudaStream_t stream) {
  busy<<<1, 1, 0, stream>>>(ns);
  return cudaGetLastError();
}

}  // namespace k25::kernels
