// Matches NCCL's GPUs to the host's by bus id and records NCCL's path and transport on each pair.
#include "topology/node_nccl.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "topology/gpu_paths.hpp"
#include "topology/link_limits.hpp"

namespace k25 {
namespace {

// Adds GPUs at `bus_ids` (sorted, distinct) to a facts without GPUs, and every pair of them.
void adopt_gpus(NodeFacts& facts, std::vector<std::string> bus_ids, const std::string& from) {
  std::sort(bus_ids.begin(), bus_ids.end());
  bus_ids.erase(std::unique(bus_ids.begin(), bus_ids.end()), bus_ids.end());
  bus_ids.erase(std::remove(bus_ids.begin(), bus_ids.end(), std::string()), bus_ids.end());
  for (const std::string& bus_id : bus_ids) {
    NodeGpu gpu;
    gpu.index = static_cast<int>(facts.gpus.size());
    gpu.bus_id = bus_id;
    gpu.name = "(from " + from + ")";
    facts.gpus.push_back(gpu);
  }
  for (std::size_t a = 0; a < facts.gpus.size(); ++a)
    for (std::size_t b = a + 1; b < facts.gpus.size(); ++b) {
      NodePair pair;
      pair.a = static_cast<int>(a);
      pair.b = static_cast<int>(b);
      facts.pairs.push_back(pair);
    }
  if (!bus_ids.empty())
    facts.nccl.notes.push_back(
        fmt::format("the {} GPUs come from {}: sysfs showed none, so links, bridges and ACS are not known",
                    bus_ids.size(), from));
}

int index_of(const NodeFacts& facts, const std::string& bus_id) {
  const NodeGpu* gpu = find_gpu(facts, bus_id);
  return gpu == nullptr ? -1 : gpu->index;
}

}  // namespace

void add_nccl_topology(NodeFacts& facts, const NcclTopologyXml& dump) {
  facts.nccl.topology_file = dump.file;
  if (facts.gpus.empty()) {
    std::vector<std::string> bus_ids;
    for (const NcclXmlGpu& gpu : dump.gpus) bus_ids.push_back(gpu.bus_id);
    adopt_gpus(facts, bus_ids, "NCCL's topology dump");
    for (const NcclXmlGpu& from : dump.gpus) {
      const int index = index_of(facts, from.bus_id);
      if (index < 0) continue;
      NodeGpu& gpu = facts.gpus[static_cast<std::size_t>(index)];
      gpu.numa_node = from.numa_id;
      gpu.link_gen = pcie_generation_of_speed(from.link_speed);
      gpu.link_width = from.link_width;
      gpu.nvlinks = 0;
      for (const NcclXmlNvlink& link : from.nvlinks) gpu.nvlinks += link.count;
    }
  }
  std::vector<std::string> unmatched;
  for (std::size_t i = 0; i < dump.gpus.size(); ++i) {
    const int a = index_of(facts, dump.gpus[i].bus_id);
    if (a < 0) {
      unmatched.push_back(dump.gpus[i].bus_id);
      continue;
    }
    for (std::size_t k = i + 1; k < dump.gpus.size(); ++k) {
      const int b = index_of(facts, dump.gpus[k].bus_id);
      NodePair* pair = b < 0 ? nullptr : find_pair(facts, a, b);
      if (pair == nullptr) continue;
      const PathClass nccl = nccl_xml_path(dump.gpus[i], dump.gpus[k]);
      pair->nccl_path = path_class_id(nccl);
      // sysfs cannot see NVLink; without NVML's answer, NCCL's is the best there is.
      if (nccl == PathClass::nvlink && pair->p2p_nvlink.empty())
        pair->path = path_class_id(PathClass::nvlink);
      if (pair->path == path_class_id(PathClass::unknown)) pair->path = pair->nccl_path;
    }
  }
  if (!unmatched.empty())
    facts.nccl.notes.push_back(
        fmt::format("NCCL's topology dump {} has GPUs this host's sysfs does not show: {}", dump.file,
                    fmt::join(unmatched, ", ")));
}

void add_nccl_log(NodeFacts& facts, const NcclInfoLog& log) {
  facts.nccl.log_files.insert(facts.nccl.log_files.end(), log.files.begin(), log.files.end());
  if (!log.nccl_version.empty()) {
    facts.nccl.version = log.nccl_version;
    if (facts.nccl_version.empty()) facts.nccl_version = log.nccl_version;
  }
  for (const std::string& setting : log.environment)
    if (std::find(facts.nccl.environment.begin(), facts.nccl.environment.end(), setting) ==
        facts.nccl.environment.end())
      facts.nccl.environment.push_back(setting);
  if (log.ranks.empty()) {
    if (!log.connections.empty())
      facts.nccl.notes.push_back(
          "the NCCL log names connections but no rank's device (no '... busId ... Init COMPLETE' line), so they are not matched to GPUs");
    return;
  }
  if (facts.gpus.empty()) {
    std::vector<std::string> bus_ids;
    for (const auto& [rank, device] : log.ranks) bus_ids.push_back(device.bus_id);
    adopt_gpus(facts, bus_ids, "the NCCL log");
  } else {
    std::set<std::string> hosts;
    for (const auto& [rank, device] : log.ranks) hosts.insert(device.host);
    if (!facts.host.empty() && hosts.count(facts.host) == 0 && hosts.count("") == 0)
      facts.nccl.notes.push_back(fmt::format(
          "the NCCL log names host {}, not {}: its ranks are matched to this host's GPUs by bus id",
          fmt::join(hosts, ", "), facts.host));
  }
  const auto gpu_of_rank = [&](int rank) {
    const auto found = log.ranks.find(rank);
    return found == log.ranks.end() ? -1 : index_of(facts, found->second.bus_id);
  };
  const auto same_host = [&](int r1, int r2) {
    const auto a = log.ranks.find(r1), b = log.ranks.find(r2);
    return a != log.ranks.end() && b != log.ranks.end() && a->second.host == b->second.host;
  };
  std::map<std::pair<int, int>, std::set<std::string>> transports;
  std::set<std::string> unmatched;
  for (const NcclConnection& connection : log.connections) {
    if (!same_host(connection.from_rank, connection.to_rank)) continue;
    const int a = gpu_of_rank(connection.from_rank), b = gpu_of_rank(connection.to_rank);
    if (a < 0 || b < 0) {
      unmatched.insert(fmt::format("{} -> {}", connection.from_rank, connection.to_rank));
      continue;
    }
    if (a == b) continue;
    transports[{std::min(a, b), std::max(a, b)}].insert(connection.transport);
  }
  for (const auto& [key, names] : transports)
    if (NodePair* pair = find_pair(facts, key.first, key.second))
      pair->nccl_transport = fmt::format("{}", fmt::join(names, ", "));
  // "P2P is disabled between connected GPUs X and Y": X and Y are CUDA devices of the printing process.
  for (const auto& [dev_a, dev_b] : log.p2p_disabled) {
    int a = -1, b = -1;
    for (const auto& [rank, device] : log.ranks) {
      if (device.cuda_dev == dev_a && a < 0) a = index_of(facts, device.bus_id);
      if (device.cuda_dev == dev_b && b < 0) b = index_of(facts, device.bus_id);
    }
    if (NodePair* pair = a >= 0 && b >= 0 && a != b ? find_pair(facts, a, b) : nullptr)
      pair->nccl_p2p_disabled = true;
  }
  if (!unmatched.empty())
    facts.nccl.notes.push_back(fmt::format(
        "NCCL connections between ranks whose GPUs this host does not show: {}", fmt::join(unmatched, ", ")));
}

}  // namespace k25
