// The P2P bandwidth tests people paste: the CUDA samples' p2pBandwidthLatencyTest ("Device: 0, NAME,
// pciBusID: 4f, ...", "Device=0 CAN Access Peer Device=1", the P2P Connectivity Matrix and the P2P=Enabled
// and P2P=Disabled bandwidth and latency matrices) and nvbandwidth ("Device 0: NAME (00000000:1b:00)",
// "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)" and its "<-" and "<->" matrices). A matrix cut short
// is read as far as it goes, and said.
#pragma once

#include <string>
#include <vector>

#include "doctor/readers/pasted_text.hpp"

namespace k25 {

enum class MatrixKind { connectivity, unidirectional, bidirectional, latency };

struct BandwidthCell {
  int row = -1, column = -1;  // CUDA device indices of the test's process
  double value = -1;          // GB/s (latency: us; connectivity: 0 or 1); -1 where "N/A"
  FactSource source;          // the row's line
};

struct BandwidthMatrix {
  std::string tool;   // "p2pBandwidthLatencyTest", "nvbandwidth"
  std::string title;  // as printed (nvbandwidth's: the test's name before it)
  MatrixKind kind = MatrixKind::unidirectional;
  int p2p = -1;               // 1 P2P enabled, 0 disabled, -1 not said
  bool row_is_source = true;  // false for nvbandwidth's "GPU(row) <- GPU(column)"
  std::vector<int> columns;
  std::vector<BandwidthCell> cells;
  int rows_read = 0;
  bool cut = false;  // fewer rows, or values in a row, than columns
  FactSource title_source;
};

struct BandwidthDevice {
  int cuda_index = -1;
  std::string name;    // "NVIDIA GeForce RTX 4090"
  std::string bus_id;  // "0000:4f:00.0"; empty where the tool did not print it
  FactSource source;
};

struct PeerAccess {
  int from = -1, to = -1;
  bool can = false;
  FactSource source;
};

struct BandwidthTests {
  std::vector<BandwidthDevice> devices;
  std::vector<PeerAccess> access;
  std::vector<BandwidthMatrix> matrices;
};

// Whether `text` holds p2pBandwidthLatencyTest's or nvbandwidth's output.
bool has_bandwidth_tests(const PastedText& text);

BandwidthTests read_bandwidth_tests(const PastedText& text);

}  // namespace k25
