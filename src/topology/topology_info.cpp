// JSON form of the topology record (report.json `topology`).
#include "topology/topology_info.hpp"

namespace k25 {

void to_json(nlohmann::json& j, const GpuInfo& g) {
  j = nlohmann::json{{"rank", g.rank},
                     {"host", g.host},
                     {"name", g.name},
                     {"bus_id", g.bus_id},
                     {"pcie_gen", g.pcie_gen},
                     {"pcie_width", g.pcie_width},
                     {"pcie_gen_max", g.pcie_gen_max},
                     {"pcie_width_max", g.pcie_width_max},
                     {"nvlinks", g.nvlinks},
                     {"nvlink_version", g.nvlink_version},
                     {"driver_version", g.driver_version},
                     {"source", g.source}};
}

void from_json(const nlohmann::json& j, GpuInfo& g) {
  g.rank = j.value("rank", 0);
  g.host = j.value("host", "");
  g.name = j.value("name", "");
  g.bus_id = j.value("bus_id", "");
  g.pcie_gen = j.value("pcie_gen", 0);
  g.pcie_width = j.value("pcie_width", 0);
  g.pcie_gen_max = j.value("pcie_gen_max", 0);
  g.pcie_width_max = j.value("pcie_width_max", 0);
  g.nvlinks = j.value("nvlinks", 0);
  g.nvlink_version = j.value("nvlink_version", 0);
  g.driver_version = j.value("driver_version", "");
  g.source = j.value("source", "");
}

void to_json(nlohmann::json& j, const TopologyInfo& t) {
  j = nlohmann::json{{"kind", t.kind}, {"gpus", t.gpus}, {"peer_access", t.peer_access},
                     {"link_description", t.link_description}};
  j["link_limit_gbps"] = t.link_limit_gbps ? nlohmann::json(*t.link_limit_gbps) : nlohmann::json(nullptr);
  if (!t.nccl_version.empty()) j["nccl_version"] = t.nccl_version;
}

void from_json(const nlohmann::json& j, TopologyInfo& t) {
  t.kind = j.value("kind", "host");
  t.gpus = j.value("gpus", std::vector<GpuInfo>{});
  t.peer_access = j.value("peer_access", std::vector<std::vector<int>>{});
  t.link_description = j.value("link_description", "");
  if (j.contains("link_limit_gbps") && j["link_limit_gbps"].is_number())
    t.link_limit_gbps = j["link_limit_gbps"].get<double>();
  t.nccl_version = j.value("nccl_version", "");
}

}  // namespace k25
