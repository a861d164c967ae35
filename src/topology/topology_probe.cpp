// Reads each rank's GPU (NVML by dlopen, sysfs fallback), gathers the records on the coordinator and labels
// the run.
#include "topology/topology_probe.hpp"

#include <mpi.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "topology/link_limits.hpp"
#include "topology/node_probe.hpp"
#include "topology/nvml_library.hpp"
#include "topology/pcie_sysfs.hpp"
#include "topology/topology_label.hpp"

namespace k25 {

GpuInfo read_gpu_info(const RankContext& context, int device, const NcclBackend& nccl,
                      std::vector<int>* peer_row, std::vector<std::string>* visible_bus_ids,
                      std::string* nccl_version) {
  GpuInfo info;
  info.rank = context.rank();
  info.host = context.host();
  const LocalGpu local = nccl.read_local_gpu(context, device);
  if (peer_row != nullptr) *peer_row = local.peer_access;
  if (visible_bus_ids != nullptr) *visible_bus_ids = local.visible_bus_ids;
  if (nccl_version != nullptr) *nccl_version = local.nccl_version;
  if (!local.present) {
    info.source = "none";
    return info;
  }
  info.bus_id = local.bus_id;
  info.name = local.name;
  int compute_major = local.compute_major;

  const auto nvml = NvmlLibrary::open();
  std::optional<NvmlGpu> from_nvml;
  if (nvml && !local.bus_id.empty()) from_nvml = nvml->gpu(local.bus_id);
  if (from_nvml) {
    info.source = "nvml";
    if (!from_nvml->name.empty()) info.name = from_nvml->name;
    info.pcie_gen = from_nvml->pcie_gen;
    info.pcie_width = from_nvml->pcie_width;
    info.pcie_gen_max = from_nvml->pcie_gen_max;
    info.pcie_width_max = from_nvml->pcie_width_max;
    info.nvlinks = from_nvml->nvlinks;
    if (compute_major == 0) compute_major = from_nvml->compute_major;
    if (info.nvlinks > 0) {
      info.nvlink_version = nvlink_generation_for_compute(compute_major);
      if (info.nvlink_version == 0)
        info.nvlink_version = nvlink_generation_from_nvml(from_nvml->nvlink_nvml_version);
    }
    info.driver_version = nvml->driver_version();
  }
  if (!from_nvml || info.pcie_gen == 0) {
    if (const auto link = read_pcie_link(local.bus_id)) {
      info.source = from_nvml ? "nvml+sysfs" : "sysfs";
      info.pcie_gen = link->gen;
      info.pcie_width = link->width;
      info.pcie_gen_max = link->gen_max;
      info.pcie_width_max = link->width_max;
    } else if (!from_nvml) {
      info.source = "cuda";  // name and bus id only
    }
  }
  if (info.driver_version.empty()) info.driver_version = read_driver_version();
  if (info.driver_version.empty() && !local.cuda_driver_version.empty())
    info.driver_version = "CUDA " + local.cuda_driver_version;
  return info;
}

TopologyInfo probe_topology(const RankContext& context, int device, const NcclBackend& nccl) {
  TopologyInfo info;
  if (device < 0) {
    label_topology(info, context.host_count());
    label_hosts(info, context.hosts(), context.local_ranks());
    return info;
  }
  std::vector<int> peer_row;
  std::vector<std::string> visible;
  std::string nccl_version;
  const GpuInfo mine = read_gpu_info(context, device, nccl, &peer_row, &visible, &nccl_version);
  nlohmann::json fields = {{"gpu", mine},
                           {"visible", visible},
                           {"peers", peer_row},
                           {"nccl", nccl_version},
                           {"cpus", this_process_cpus()}};
  // One rank per host reads the host's node facts (doctor's): the PCI tree, ACS, IOMMU, NVML's P2P status.
  if (context.local_rank() == 0) {
    NodeProbeOptions probe;
    probe.host = context.host();
    NodeFacts node = read_node_facts(probe);
    node.nccl_version = nccl_version;
    fields["node"] = node;
  }
  const std::string record = fields.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);

  // Gather the JSON records (variable length) on the coordinator.
  const int length = static_cast<int>(record.size());
  std::vector<int> lengths(static_cast<std::size_t>(context.size()), 0);
  K25_MPI_CHECK(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, context.world()));
  std::vector<int> offsets(lengths.size(), 0);
  std::string all;
  if (context.is_coordinator()) {
    int total = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      offsets[r] = total;
      total += lengths[r];
    }
    all.resize(static_cast<std::size_t>(total));
  }
  K25_MPI_CHECK(MPI_Gatherv(record.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                            MPI_CHAR, 0, context.world()));
  if (!context.is_coordinator()) {
    info.gpus = {mine};
    info.nccl_version = nccl_version;
    label_topology(info, context.host_count());
    return info;
  }

  struct Entry {
    GpuInfo gpu;
    std::vector<std::string> visible;  // bus ids of the devices this rank's process sees
    std::vector<int> peers;            // peer access to each of them
    std::string cpus;                  // the CPUs the rank may run on
  };
  std::vector<Entry> entries;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    const auto j = nlohmann::json::parse(
        all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
    entries.push_back({j.at("gpu").get<GpuInfo>(), j.at("visible").get<std::vector<std::string>>(),
                       j.at("peers").get<std::vector<int>>(), j.value("cpus", "")});
    if (j.contains("node")) info.nodes.push_back(j["node"].get<NodeFacts>());
  }
  // Each host's node facts name the ranks on it, their GPUs and CPUs.
  for (NodeFacts& node : info.nodes)
    for (const Entry& entry : entries)
      if (entry.gpu.host == node.host) node.ranks.push_back({entry.gpu.rank, entry.gpu.bus_id, entry.cpus});
  // Rank i reaches rank k's GPU directly where it is i's own GPU, or one i's process sees with peer access
  // (0 where k's GPU is not visible to i: unknown counts as no).
  const std::size_t n = entries.size();
  info.peer_access.assign(n, std::vector<int>(n, 0));
  for (std::size_t i = 0; i < n; ++i) {
    info.gpus.push_back(entries[i].gpu);
    for (std::size_t k = 0; k < n; ++k) {
      if (entries[i].gpu.host != entries[k].gpu.host) continue;
      const std::string& target = entries[k].gpu.bus_id;
      if (!target.empty() && target == entries[i].gpu.bus_id) {
        info.peer_access[i][k] = 1;
        continue;
      }
      const auto& seen = entries[i].visible;
      const auto found = std::find(seen.begin(), seen.end(), target);
      const auto d = static_cast<std::size_t>(found - seen.begin());
      if (!target.empty() && found != seen.end() && d < entries[i].peers.size())
        info.peer_access[i][k] = entries[i].peers[d];
    }
  }
  info.nccl_version = nccl_version;
  label_topology(info, context.host_count());
  label_hosts(info, context.hosts(), context.local_ranks());
  return info;
}

}  // namespace k25
