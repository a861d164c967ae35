// Measured GPU-to-GPU copies of one host (doctor's matrix): per ordered pair of the GPUs this process sees,
// the bandwidth of a copy kernel writing into the peer (push) and reading from it (pull), of
// cudaMemcpyPeerAsync (the copy engines), and a small copy's latency. Plain data: the NCCL transport's build
// measures it (NcclBackend::measure_p2p), everything else reads it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace k25 {

// One direction of one pair: data moves from device `src` to device `dst` (CUDA's visible order).
struct P2pDirection {
  int src = 0, dst = 0;
  bool peer_access = false;  // cudaDeviceCanAccessPeer(src, dst): without it the copies go through the host
  // GB/s (1e9 bytes per second), median over the repeats; -1 where not measured.
  double push_gbps = -1;    // a kernel on src stores into dst's memory
  double pull_gbps = -1;    // a kernel on dst loads from src's memory into its own
  double memcpy_gbps = -1;  // cudaMemcpyPeerAsync(dst, src) on src's stream
  double latency_us = -1;   // one cudaMemcpyPeerAsync of `small_bytes`, median, from event to event

  bool operator==(const P2pDirection&) const = default;
};

struct P2pMeasurement {
  // "measured"; "not built" (k25comm without the NCCL transport); "no GPU visible"; "failed: why".
  std::string status = "not run";
  std::vector<std::string> bus_ids;  // device index -> bus id ("0000:4f:00.0")
  std::uint64_t bytes = 0;           // per bandwidth copy
  std::uint64_t small_bytes = 0;     // per latency copy
  int repeats = 0;
  // Every ordered pair src != dst; with one GPU the one direction 0 -> 0, its own device-to-device copy, as a
  // bound (said in `note`).
  std::vector<P2pDirection> directions;
  std::string note;

  bool operator==(const P2pMeasurement&) const = default;
};

}  // namespace k25
