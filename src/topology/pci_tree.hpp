// The PCI device tree of a host as Linux's sysfs shows it, read from a root path (/ on a live host, a folder
// holding sys/ and proc/ for a copy or a test fixture): every NVIDIA GPU, the bridges between it and its host
// bridge with their links and ACS bits, its NUMA node, its nearby CPUs and its IOMMU group.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "topology/pci_config.hpp"
#include "topology/pcie_sysfs.hpp"

namespace k25 {

// One PCI function as sysfs describes it: a GPU or a bridge on a GPU's path.
struct PciNode {
  std::string bus_id;     // "0000:04:08.0"
  std::string vendor;     // "0x10b5"
  std::string device;     // "0x8747"
  std::string pci_class;  // "0x060400"
  PcieLink link;          // its own current_link_* and max_link_* (0 where sysfs has none)
  ConfigSpace config;     // from `config`: port type and ACS where readable
};

struct PciGpu {
  PciNode node;
  std::string host_bridge;  // the sysfs folder of its PCI root: "pci0000:00"
  // The bridges from the host bridge down to the GPU (root port first, the GPU's own port last).
  std::vector<std::string> path;
  int numa_node = -1;       // sysfs numa_node; -1 where none or unknown
  std::string local_cpus;   // local_cpulist: the CPUs nearest the GPU ("0-13,28-41"), empty where unknown
  std::string iommu_group;  // the group's number, empty where the GPU has none
  std::string iommu_type;   // the group's `type` ("identity", "DMA", "DMA-FQ", ...), empty where unknown
};

struct PciTree {
  bool sysfs_found = false;                // <root>/sys/bus/pci/devices exists
  std::vector<PciGpu> gpus;                // in bus id order (NVML's and nvidia-smi's)
  std::map<std::string, PciNode> bridges;  // every bridge on a GPU's path, by bus id
};

// Reads <root>/sys/bus/pci/devices. Never throws for missing or unreadable files: what could not be read
// stays empty or unknown (a `config` file an unprivileged user can read only 64 bytes of gives ACS
// needs_root).
PciTree read_pci_tree(const std::filesystem::path& root);

// True for a PCI bus id "DDDD:BB:DD.F" (lower or upper case hex; 4 or more domain digits).
bool is_pci_bus_id(const std::string& text);

}  // namespace k25
