// Reads one host's node facts: the PCI tree and the IOMMU from a root path, NVML's names, NVLinks and P2P
// status where the root is this host's own and NVML loads, and the pairs' path classes.
#pragma once

#include <filesystem>
#include <string>

#include "topology/node_facts.hpp"

namespace k25 {

struct NodeProbeOptions {
  std::filesystem::path root =
      "/";               // where sys/ and proc/ are; anything but "/" is a copy: NVML is not asked
  std::string host;      // the name to record
  bool use_nvml = true;  // false: sysfs alone (tests; a copy of another host)
};

// Never throws for what it cannot read: each thing not seen is said once in `unseen`.
NodeFacts read_node_facts(const NodeProbeOptions& options);

// The CPUs this process may run on (sched_getaffinity) as a list, "0-13,28-41"; empty where unknown.
std::string this_process_cpus();

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}; items that are not numbers or ranges are skipped, and a range above
// 65535 is cut there.
std::vector<int> parse_cpu_list(const std::string& list);

}  // namespace k25
