// Times copy kernels and cudaMemcpyPeerAsync between each ordered pair of visible GPUs: a warm-up, then each
// repeat between two events on the copying stream, the median kept.
#include "transport/nccl/p2p_copies.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <vector>

#include <fmt/format.h>

#include "k25_kernels.h"
#include "transport/nccl/cuda_check.hpp"
#include "transport/nccl/cuda_resources.hpp"

namespace k25::nccl {
namespace {

constexpr std::uint64_t kCopyBytes = 64ull << 20;  // large enough that launch cost is under 1 % on PCIe Gen5
constexpr std::uint64_t kSmallBytes = 8;
constexpr int kRepeats = 10;
constexpr int kLatencyRepeats = 50;

// What one visible GPU holds for the measurement: a source and a destination buffer and a stream.
struct DeviceSide {
  int device = 0;
  DeviceBuffer source, target;
  CudaStream stream;
  CudaEvent start, stop;
};

// Median of `repeats` timings (milliseconds) of `enqueue` on `side`'s stream, after one untimed warm-up.
double median_ms(DeviceSide& side, int repeats, const std::function<void(cudaStream_t)>& enqueue) {
  K25_CUDA_CHECK(cudaSetDevice(side.device));
  enqueue(side.stream.get());
  K25_CUDA_CHECK(cudaStreamSynchronize(side.stream.get()));
  std::vector<float> times;
  for (int i = 0; i < repeats; ++i) {
    K25_CUDA_CHECK(cudaEventRecord(side.start.get(), side.stream.get()));
    enqueue(side.stream.get());
    K25_CUDA_CHECK(cudaEventRecord(side.stop.get(), side.stream.get()));
    K25_CUDA_CHECK(cudaEventSynchronize(side.stop.get()));
    float ms = 0;
    K25_CUDA_CHECK(cudaEventElapsedTime(&ms, side.start.get(), side.stop.get()));
    times.push_back(ms);
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

double gbps(std::uint64_t bytes, double ms) {
  return ms > 0 ? static_cast<double>(bytes) / (ms * 1e6) : -1;
}

void enable_peer(int from, int to) {
  K25_CUDA_CHECK(cudaSetDevice(from));
  const cudaError_t rc = cudaDeviceEnablePeerAccess(to, 0);
  if (rc == cudaErrorPeerAccessAlreadyEnabled) {
    (void)cudaGetLastError();
    return;
  }
  K25_CUDA_CHECK(rc);
}

P2pMeasurement measure(int devices) {
  P2pMeasurement result;
  result.bytes = kCopyBytes;
  result.small_bytes = kSmallBytes;
  result.repeats = kRepeats;
  std::vector<DeviceSide> sides(static_cast<std::size_t>(devices));
  for (int d = 0; d < devices; ++d) {
    std::array<char, 32> bus{};
    K25_CUDA_CHECK(cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), d));
    std::string bus_id = bus.data();
    std::transform(bus_id.begin(), bus_id.end(), bus_id.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    result.bus_ids.push_back(bus_id);
    DeviceSide& side = sides[static_cast<std::size_t>(d)];
    side.device = d;
    K25_CUDA_CHECK(cudaSetDevice(d));
    side.source = DeviceBuffer::allocate(kCopyBytes);
    side.target = DeviceBuffer::allocate(kCopyBytes);
    K25_CUDA_CHECK(cudaMemset(side.source.get(), 1, kCopyBytes));
    side.stream = CudaStream::create();
    side.start = CudaEvent::create();
    side.stop = CudaEvent::create();
  }
  for (int s = 0; s < devices; ++s)
    for (int d = 0; d < devices; ++d) {
      if (s == d && devices > 1) continue;
      DeviceSide &from = sides[static_cast<std::size_t>(s)], &to = sides[static_cast<std::size_t>(d)];
      P2pDirection direction;
      direction.src = s;
      direction.dst = d;
      int forward = s == d ? 1 : 0, backward = s == d ? 1 : 0;
      if (s != d) {
        K25_CUDA_CHECK(cudaDeviceCanAccessPeer(&forward, s, d));
        K25_CUDA_CHECK(cudaDeviceCanAccessPeer(&backward, d, s));
        if (forward) enable_peer(s, d);
        if (backward) enable_peer(d, s);
      }
      direction.peer_access = forward != 0;
      const void* source = from.source.get();
      void* target = to.target.get();
      const auto kernel = [&](cudaStream_t stream) {
        K25_CUDA_CHECK(kernels::copy_bytes(source, target, kCopyBytes, stream));
      };
      if (forward) direction.push_gbps = gbps(kCopyBytes, median_ms(from, kRepeats, kernel));
      if (backward) direction.pull_gbps = gbps(kCopyBytes, median_ms(to, kRepeats, kernel));
      direction.memcpy_gbps =
          gbps(kCopyBytes, median_ms(from, kRepeats, [&](cudaStream_t stream) {
                 K25_CUDA_CHECK(cudaMemcpyPeerAsync(target, d, source, s, kCopyBytes, stream));
               }));
      direction.latency_us = 1000.0 * median_ms(from, kLatencyRepeats, [&](cudaStream_t stream) {
                               K25_CUDA_CHECK(cudaMemcpyPeerAsync(target, d, source, s, kSmallBytes, stream));
                             });
      result.directions.push_back(direction);
    }
  result.status = "measured";
  if (devices == 1)
    result.note =
        "one GPU: its own device-to-device copy (0 -> 0), a bound on what any link could carry, not a peer figure";
  return result;
}

}  // namespace

P2pMeasurement measure_p2p_copies() {
  P2pMeasurement result;
  int devices = 0;
  const cudaError_t rc = cudaGetDeviceCount(&devices);
  if (rc != cudaSuccess || devices == 0) {
    result.status = rc == cudaSuccess
                        ? "no GPU visible"
                        : fmt::format("no GPU visible (cudaGetDeviceCount: {})", cudaGetErrorString(rc));
    (void)cudaGetLastError();
    return result;
  }
  try {
    result = measure(devices);
  } catch (const Error& e) {
    result = P2pMeasurement{};
    result.status = fmt::format("failed: {} ({})", e.what(), e.failed_call());
  }
  (void)cudaGetLastError();
  return result;
}

}  // namespace k25::nccl
