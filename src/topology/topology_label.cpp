// Labels a run's topology and finds the per-direction limit of its slowest GPU link.
#include "topology/topology_label.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "topology/link_limits.hpp"

namespace k25 {
namespace {

std::string pcie_words(const GpuInfo& gpu) {
  const int generation = gpu.pcie_gen_max > 0 ? gpu.pcie_gen_max : gpu.pcie_gen;
  const int width = gpu.pcie_width_max > 0 ? gpu.pcie_width_max : gpu.pcie_width;
  return fmt::format("PCIe Gen{} x{}", generation, width);
}

}  // namespace

void label_topology(TopologyInfo& info, int hosts) {
  info.link_limit_gbps.reset();
  if (info.gpus.empty()) {
    info.kind = "host";
    info.link_description = "host memory (mpi transport): no GPU link is used";
    if (hosts > 1)
      info.link_description += fmt::format(
          "; the run spans {} hosts, so ops between them cross the network (MPI over TCP or whatever the MPI library chose)",
          hosts);
    return;
  }
  const auto with_nvlink =
      std::count_if(info.gpus.begin(), info.gpus.end(), [](const GpuInfo& g) { return g.nvlinks > 0; });
  const bool all_nvlink = with_nvlink == static_cast<long>(info.gpus.size());
  info.kind = all_nvlink ? "nvlink" : with_nvlink == 0 ? "pcie" : "mixed";

  // The slowest GPU sets the limit; in a mixed run traffic to the GPUs without NVLink crosses PCIe.
  const GpuInfo* slowest = nullptr;
  for (const GpuInfo& gpu : info.gpus) {
    GpuInfo as_used = gpu;
    if (!all_nvlink) as_used.nvlinks = 0;
    const auto limit = link_limit_gbps(as_used);
    if (!limit) {
      info.link_limit_gbps.reset();
      slowest = nullptr;
      info.link_description =
          fmt::format("{}: the link of rank {} ({}) is not known", info.kind, gpu.rank, gpu.bus_id);
      break;
    }
    if (!info.link_limit_gbps || *limit < *info.link_limit_gbps) {
      info.link_limit_gbps = limit;
      slowest = &gpu;
    }
  }
  if (slowest != nullptr) {
    const std::string link = all_nvlink
                                 ? fmt::format("NVLink {} x{}", slowest->nvlink_version, slowest->nvlinks)
                                 : pcie_words(*slowest);
    info.link_description =
        fmt::format("{}, {:.1f} GB/s per direction{}", link, *info.link_limit_gbps,
                    info.kind == "mixed" ? " (mixed: PCIe bounds the GPUs without NVLink)" : "");
  }
  if (hosts > 1) {
    info.link_limit_gbps.reset();
    info.link_description += fmt::format(
        "; the run spans {} hosts, so the network between them sets the limit (not known to k25comm)", hosts);
  }
}

void label_emulated(TopologyInfo& info, int ranks) {
  std::set<std::string> gpus;
  for (const GpuInfo& gpu : info.gpus) gpus.insert(gpu.host + "/" + gpu.bus_id);
  info.kind = "emulated";
  info.link_limit_gbps.reset();
  info.link_description = fmt::format(
      "emulated: {} ranks on {} GPU{}, connected through NCCL's socket transport over loopback (not a GPU link)",
      ranks, gpus.size(), gpus.size() == 1 ? "" : "s");
}

void label_hosts(TopologyInfo& info, const std::vector<std::string>& rank_hosts,
                 const std::vector<int>& local_ranks) {
  info.hosts.clear();
  for (std::size_t rank = 0; rank < rank_hosts.size(); ++rank) {
    auto host = std::find_if(info.hosts.begin(), info.hosts.end(),
                             [&](const HostTopology& h) { return h.name == rank_hosts[rank]; });
    if (host == info.hosts.end()) {
      HostTopology added;
      added.name = rank_hosts[rank];
      host = info.hosts.insert(info.hosts.end(), std::move(added));
    }
    const int local = rank < local_ranks.size() ? local_ranks[rank] : -1;
    const auto slot = local >= 0 ? static_cast<std::size_t>(local) : host->ranks.size();
    if (host->ranks.size() <= slot) host->ranks.resize(slot + 1, -1);
    host->ranks[slot] = static_cast<int>(rank);
  }
  for (HostTopology& host : info.hosts) {
    TopologyInfo own;
    for (const GpuInfo& gpu : info.gpus)
      if (gpu.host == host.name) own.gpus.push_back(gpu);
    label_topology(own, 1);
    host.kind = own.kind;
    host.link_description = own.link_description;
  }
}

}  // namespace k25
