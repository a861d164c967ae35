// Combines the sysfs readers and NVML into one host's node facts.
#include "topology/node_probe.hpp"

#include <sched.h>

#include <algorithm>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "topology/gpu_paths.hpp"
#include "topology/nvml_library.hpp"
#include "topology/pci_tree.hpp"
#include "topology/pcie_sysfs.hpp"

namespace k25 {
namespace {

namespace fs = std::filesystem;

std::string acs_words(AcsState::Read state) {
  switch (state) {
    case AcsState::Read::read:
      return "read";
    case AcsState::Read::needs_root:
      return "needs root";
    case AcsState::Read::absent:
      return "absent";
    default:
      return "not read";
  }
}

// The port type a bridge's place on a GPU's path implies: the first bridge below the host bridge is a root
// port, then switches alternate an upstream and a downstream port down to the GPU.
std::string port_type_by_position(std::size_t position) {
  if (position == 0) return "root port";
  return position % 2 == 1 ? "switch upstream port" : "switch downstream port";
}

NodeBridge bridge_facts(const PciNode& node, const std::string& parent, std::size_t position) {
  NodeBridge bridge;
  bridge.bus_id = node.bus_id;
  bridge.vendor = node.vendor;
  bridge.device = node.device;
  bridge.port_type = node.config.port.words();
  bridge.port_type_from = "config space";
  if (bridge.port_type.empty()) {
    bridge.port_type = port_type_by_position(position);
    bridge.port_type_from = "position";
  }
  bridge.parent = parent;
  bridge.link_gen = node.link.gen;
  bridge.link_width = node.link.width;
  bridge.gen_max = node.link.gen_max;
  bridge.width_max = node.link.width_max;
  bridge.acs = node.config.reach == ConfigReach::missing ? "not read" : acs_words(node.config.acs.state);
  if (node.config.acs.state == AcsState::Read::read) {
    bridge.acs_control = node.config.acs.control;
    bridge.acs_bits = node.config.acs.lspci_words();
    bridge.acs_redirects = node.config.acs.redirects_peer_traffic();
  }
  return bridge;
}

std::string cpu_list_text(const std::vector<int>& cpus) {
  std::string text;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    text += (text.empty() ? "" : ",") +
            (j == i ? std::to_string(cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]));
    i = j + 1;
  }
  return text;
}

}  // namespace

std::vector<int> parse_cpu_list(const std::string& list) {
  std::set<int> cpus;
  std::istringstream items(list);
  for (std::string item; std::getline(items, item, ',');) {
    const std::size_t dash = item.find('-');
    try {
      std::size_t used = 0;
      const int first = std::stoi(item.substr(0, dash), &used);
      if (first < 0 || first > 65535) continue;
      int last = first;
      if (dash != std::string::npos) last = std::min(std::stoi(item.substr(dash + 1)), 65535);
      for (int cpu = first; cpu <= last; ++cpu) cpus.insert(cpu);
    } catch (const std::exception&) {
      continue;
    }
  }
  return {cpus.begin(), cpus.end()};
}

std::string this_process_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return {};
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpu_list_text(cpus);
}

NodeFacts read_node_facts(const NodeProbeOptions& options) {
  NodeFacts facts;
  facts.host = options.host;
  facts.root = options.root.string();
  const PciTree tree = read_pci_tree(options.root);
  facts.sysfs_found = tree.sysfs_found;
  if (!tree.sysfs_found)
    facts.unseen.push_back(
        fmt::format("PCI devices: {} is not readable, so no GPU, bridge, link or ACS bit was seen",
                    (options.root / "sys/bus/pci/devices").string()));
  else if (tree.gpus.empty())
    facts.unseen.push_back(
        fmt::format("GPUs: sysfs under {} lists no NVIDIA GPU (vendor 0x10de, class 0x0300 or 0x0302)",
                    options.root.string()));

  std::unique_ptr<NvmlLibrary> nvml;
  if (!options.use_nvml || options.root != "/") {
    facts.nvml = "not asked: the facts are read from a copy, not this host";
  } else if (!tree.gpus.empty()) {
    nvml = NvmlLibrary::open();
    facts.nvml = nvml ? "read" : "not loaded: libnvidia-ml.so.1 is missing or nvmlInit failed";
    if (!nvml)
      facts.unseen.push_back(
          "NVML: libnvidia-ml.so.1 did not load, so GPU names, NVLinks and NVML's P2P status are unknown");
  } else {
    facts.nvml = "not asked: no GPU";
  }

  for (const auto& [bus_id, node] : tree.bridges) {
    std::string parent;
    std::size_t position = 0;
    for (const PciGpu& gpu : tree.gpus) {
      const auto at = std::find(gpu.path.begin(), gpu.path.end(), bus_id);
      if (at == gpu.path.end()) continue;
      position = static_cast<std::size_t>(at - gpu.path.begin());
      if (at != gpu.path.begin()) parent = *(at - 1);
    }
    facts.bridges.push_back(bridge_facts(node, parent, position));
  }
  const int needs_root = static_cast<int>(std::count_if(
      facts.bridges.begin(), facts.bridges.end(), [](const NodeBridge& b) { return b.acs == "needs root"; }));
  if (needs_root > 0)
    facts.unseen.push_back(fmt::format(
        "ACS: {} of {} bridges need root to read (config space beyond its first 64 bytes); run doctor as root",
        needs_root, facts.bridges.size()));

  std::vector<std::string> gpu_iommu_types;
  for (std::size_t i = 0; i < tree.gpus.size(); ++i) {
    const PciGpu& pci = tree.gpus[i];
    NodeGpu gpu;
    gpu.index = static_cast<int>(i);
    gpu.bus_id = pci.node.bus_id;
    gpu.name = fmt::format("NVIDIA device {}", pci.node.device);
    gpu.numa_node = pci.numa_node;
    gpu.local_cpus = pci.local_cpus;
    gpu.link_gen = pci.node.link.gen;
    gpu.link_width = pci.node.link.width;
    gpu.gpu_gen_max = pci.node.link.gen_max;
    gpu.gpu_width_max = pci.node.link.width_max;
    if (!pci.path.empty()) {
      gpu.port = pci.path.back();
      const PciNode& port = tree.bridges.at(gpu.port);
      gpu.port_gen_max = port.link.gen_max;
      gpu.port_width_max = port.link.width_max;
    }
    gpu.iommu_group = pci.iommu_group;
    gpu.iommu_type = pci.iommu_type;
    gpu_iommu_types.push_back(pci.iommu_type);
    if (nvml) {
      if (const auto from_nvml = nvml->gpu(gpu.bus_id)) {
        if (!from_nvml->name.empty()) gpu.name = from_nvml->name;
        gpu.nvlinks = from_nvml->nvlinks;
        gpu.sm = from_nvml->compute_major * 10 + from_nvml->compute_minor;
      }
    }
    facts.gpus.push_back(std::move(gpu));
  }

  for (std::size_t a = 0; a < tree.gpus.size(); ++a)
    for (std::size_t b = a + 1; b < tree.gpus.size(); ++b) {
      NodePair pair;
      pair.a = static_cast<int>(a);
      pair.b = static_cast<int>(b);
      const PciePath path = pcie_path(tree.gpus[a], tree.gpus[b]);
      pair.path = path.path;
      pair.bridges = path.bridges;
      if (nvml) {
        if (const auto status = nvml->p2p(facts.gpus[a].bus_id, facts.gpus[b].bus_id)) {
          pair.p2p_read = nvml_p2p_words(status->read);
          pair.p2p_write = nvml_p2p_words(status->write);
          pair.p2p_atomics = nvml_p2p_words(status->atomics);
          pair.p2p_nvlink = nvml_p2p_words(status->nvlink);
          if (status->nvlink == 0) pair.path = PathClass::nvlink;
        }
      }
      facts.pairs.push_back(std::move(pair));
    }

  facts.iommu = read_iommu_state(options.root, gpu_iommu_types);
  if (facts.iommu.mode == "unknown") facts.unseen.push_back("IOMMU: " + facts.iommu.evidence);
  if (nvml) {
    facts.driver_version = nvml->driver_version();
    facts.cuda_driver_version = nvml->cuda_driver_version();
  }
  if (facts.driver_version.empty())
    facts.driver_version = read_driver_version(options.root / "sys/module/nvidia/version");
  return facts;
}

}  // namespace k25
