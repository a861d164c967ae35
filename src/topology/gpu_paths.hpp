// The path between two GPUs of one host and what sits on it, from the PCI tree: where the traffic turns (in a
// switch, at the host bridge, between host bridges, between sockets) and the bridges it crosses.
#pragma once

#include <string>
#include <vector>

#include "topology/pci_tree.hpp"

namespace k25 {

// The classes nvidia-smi topo -m and NCCL name NV#, PIX, PXB, PHB, NODE and SYS, in that order (nearest
// first).
enum class PathClass {
  nvlink,
  same_switch,
  several_switches,
  host_bridge,
  across_host_bridges,
  across_sockets,
  unknown
};

// "nvlink", "same_switch", ... (the JSON spelling); path_class_from_id returns unknown for anything else.
std::string path_class_id(PathClass path);
PathClass path_class_from_id(const std::string& id);
// "same PCIe switch", "several PCIe switches", ... (a report's words) and nvidia-smi's abbreviation ("PIX").
std::string path_class_words(PathClass path);
std::string path_class_abbreviation(PathClass path);
// The class a word of `nvidia-smi topo -m` (PIX, PXB, PHB, NODE, SYS, the older SOC, NV12) or of NCCL's path
// table (NVL, NVB, PIX, PXB, PHB, SYS) names; unknown for anything else (X, LOC, NET, C2C, P2C, PXN). For NV#
// `nvlinks` gets the number of links (else it is left alone).
PathClass path_class_from_word(const std::string& word, int* nvlinks = nullptr);

struct PciePath {
  PathClass path = PathClass::unknown;  // over PCIe (NVLink is not in sysfs: the caller adds it)
  // The bridges the traffic crosses, from a's side to b's: up from a to where it turns (included), then down
  // to b. Across host bridges, the root ports and switches of both sides (the host bridges themselves are not
  // PCI functions).
  std::vector<std::string> bridges;
};

// The PCIe path between two GPUs of `tree`. Same host bridge: the lowest common bridge is where the traffic
// turns; one switch (three bridges: a's port, the upstream port, b's port) is same_switch, more is
// several_switches, and the root port or the host bridge is host_bridge. Different host bridges:
// across_sockets where both NUMA nodes are known and differ, else across_host_bridges.
PciePath pcie_path(const PciGpu& a, const PciGpu& b);

}  // namespace k25
