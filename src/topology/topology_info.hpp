// What the run ran on: per-GPU link facts and the run's label ("pcie", "nvlink", "mixed", "host").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "topology/node_facts.hpp"

namespace k25 {

struct GpuInfo {
  int rank = 0;
  std::string host;
  std::string name;
  std::string bus_id;
  int pcie_gen = 0, pcie_width = 0;          // current link
  int pcie_gen_max = 0, pcie_width_max = 0;  // what the link can do
  int nvlinks = 0;                           // active NVLink links
  int nvlink_version = 0;
  std::string driver_version;
  std::string source;  // "nvml", "nvml+sysfs", "sysfs", "cuda" (name and bus id only), "none"
};

// One host of the run: the world ranks on it in node-local order (ranks[i] has node-local rank i) and the
// links its own ranks share (its GPUs alone labelled as the run is; "host" without GPUs).
struct HostTopology {
  std::string name;
  std::vector<int> ranks;
  std::string kind = "host";
  std::string link_description;
};

struct TopologyInfo {
  std::string kind = "host";        // "pcie" | "nvlink" | "mixed" | "host"
  std::vector<HostTopology> hosts;  // per host, in the order of each host's lowest rank
  std::vector<GpuInfo> gpus;
  std::vector<std::vector<int>>
      peer_access;  // [i][j] = 1 where rank i's GPU can access rank j's (same host only)
  std::optional<double> link_limit_gbps;  // per-direction limit of the slowest link in the run, GB/s
  std::string link_description;           // e.g. "PCIe Gen5 x16, 63 GB/s per direction"
  std::string nccl_version;               // runtime NCCL version where the nccl transport ran
  // Doctor's facts of each host whose ranks drive GPUs (read by its node-local rank 0), with every rank's
  // CPUs; empty where no GPU is visible (report.json then has no `nodes`).
  std::vector<NodeFacts> nodes;
};

void to_json(nlohmann::json& j, const GpuInfo& g);
void from_json(const nlohmann::json& j, GpuInfo& g);
void to_json(nlohmann::json& j, const HostTopology& h);
void from_json(const nlohmann::json& j, HostTopology& h);
void to_json(nlohmann::json& j, const TopologyInfo& t);
void from_json(const nlohmann::json& j, TopologyInfo& t);

}  // namespace k25
