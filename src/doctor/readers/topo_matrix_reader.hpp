// `nvidia-smi topo -m` and `nvidia-smi topo -p2p r|w|n|a` as people paste them: tab-separated as nvidia-smi
// prints them, with the tabs turned into spaces, or as a Markdown table; with NIC columns and rows, the CPU
// Affinity, NUMA Affinity and GPU NUMA ID columns, and the "Legend:" lines after them. A matrix cut short is
// read as far as it goes.
#pragma once

#include <string>
#include <vector>

#include "doctor/readers/pasted_text.hpp"

namespace k25 {

// One GPU x GPU cell: "PIX", "NV18", "SYS" (paths) or "OK", "GNS", "CNS" (-p2p).
struct TopoCell {
  int row = -1, column = -1;  // nvidia-smi's GPU indices
  std::string word;
  FactSource source;  // the row's line
};

// A GPU row's other columns.
struct TopoGpuRow {
  int gpu = -1;
  std::string cpu_affinity;   // "0-55,112-167"; empty where the matrix has no such column
  std::string numa_affinity;  // "0"; "N/A"
  FactSource source;
};

struct TopoMatrix {
  bool p2p = false;        // a -p2p matrix (status words), else topo -m (path words)
  std::string capability;  // -p2p's: "read", "write", "read and write", "NVLink", "atomics"; empty where the
                           // paste does not show the command
  int gpus = 0;            // GPU columns
  int nics = 0;            // NIC columns (NIC0, mlx5_0, ...)
  std::vector<TopoCell> cells;
  std::vector<TopoGpuRow> rows;
  int rows_read = 0;  // GPU rows read
  bool cut = false;   // fewer GPU rows, or cells in a row, than the header has GPUs
  bool markdown = false;
  FactSource header;
};

// Whether `text` holds a topo -m or -p2p matrix (a header starting GPU0 GPU1 ... and a GPU0 row with X in
// it).
bool has_topo_matrix(const PastedText& text);

// Every matrix of `text`, in order.
std::vector<TopoMatrix> read_topo_matrices(const PastedText& text);

// -p2p's status word as NVML's words ("CNS" gives "chipset not supported"); empty for a word that is none.
std::string p2p_status_words(const std::string& word);

}  // namespace k25
