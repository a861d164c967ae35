// JSON form of the topology record (report.json `topology`).
#include "topology/topology_info.hpp"

#include <stdexcept>

#include "common/json_integer.hpp"

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
  g.rank = json_integer_or(j, "rank", 0, 0);
  g.host = j.value("host", "");
  g.name = j.value("name", "");
  g.bus_id = j.value("bus_id", "");
  g.pcie_gen = json_integer_or(j, "pcie_gen", 0);
  g.pcie_width = json_integer_or(j, "pcie_width", 0);
  g.pcie_gen_max = json_integer_or(j, "pcie_gen_max", 0);
  g.pcie_width_max = json_integer_or(j, "pcie_width_max", 0);
  g.nvlinks = json_integer_or(j, "nvlinks", 0);
  g.nvlink_version = json_integer_or(j, "nvlink_version", 0);
  g.driver_version = j.value("driver_version", "");
  g.source = j.value("source", "");
}

void to_json(nlohmann::json& j, const HostTopology& h) {
  j = nlohmann::json{
      {"name", h.name}, {"ranks", h.ranks}, {"kind", h.kind}, {"link_description", h.link_description}};
}

void from_json(const nlohmann::json& j, HostTopology& h) {
  h.name = j.value("name", "");
  h.ranks = json_integer_list<int>(j.value("ranks", nlohmann::json::array()), "ranks");
  h.kind = j.value("kind", "host");
  h.link_description = j.value("link_description", "");
}

void to_json(nlohmann::json& j, const TopologyInfo& t) {
  j = nlohmann::json{{"kind", t.kind},
                     {"hosts", t.hosts},
                     {"gpus", t.gpus},
                     {"peer_access", t.peer_access},
                     {"link_description", t.link_description}};
  j["link_limit_gbps"] = t.link_limit_gbps ? nlohmann::json(*t.link_limit_gbps) : nlohmann::json(nullptr);
  if (!t.nccl_version.empty()) j["nccl_version"] = t.nccl_version;
  if (!t.nodes.empty()) j["nodes"] = t.nodes;
}

void from_json(const nlohmann::json& j, TopologyInfo& t) {
  t.kind = j.value("kind", "host");
  t.hosts = j.value("hosts", std::vector<HostTopology>{});
  t.gpus = j.value("gpus", std::vector<GpuInfo>{});
  t.peer_access.clear();
  const nlohmann::json peer_access = j.value("peer_access", nlohmann::json::array());
  if (!peer_access.is_array()) throw std::invalid_argument("'peer_access' must be an array of arrays");
  for (const nlohmann::json& row : peer_access)
    t.peer_access.push_back(json_integer_list<int>(row, "peer_access"));
  t.link_description = j.value("link_description", "");
  if (j.contains("link_limit_gbps") && j["link_limit_gbps"].is_number())
    t.link_limit_gbps = j["link_limit_gbps"].get<double>();
  t.nccl_version = j.value("nccl_version", "");
  t.nodes = j.value("nodes", std::vector<NodeFacts>{});
}

}  // namespace k25
