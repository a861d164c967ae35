// JSON form of the node facts, written by doctor and measure runs and read back by `doctor --compare` and
// `k25comm report`: every field optional on reading, since the document may come from another version.
#include "topology/node_facts.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "common/json_integer.hpp"
#include "topology/sysfs_text.hpp"

namespace k25 {
namespace {

int integer_or(const nlohmann::json& j, const char* key, int otherwise) {
  return json_integer_or(j, key, otherwise, -1, 1 << 20);
}

double number_or(const nlohmann::json& j, const char* key, double otherwise) {
  if (!j.contains(key) || !j[key].is_number()) return otherwise;
  return j[key].get<double>();
}

std::vector<std::string> strings_or_empty(const nlohmann::json& j, const char* key) {
  return j.value(key, std::vector<std::string>{});
}

}  // namespace

void to_json(nlohmann::json& j, const P2pDirection& d) {
  j = nlohmann::json{{"src", d.src},
                     {"dst", d.dst},
                     {"peer_access", d.peer_access},
                     {"push_gbps", d.push_gbps},
                     {"pull_gbps", d.pull_gbps},
                     {"memcpy_gbps", d.memcpy_gbps},
                     {"latency_us", d.latency_us}};
}

void from_json(const nlohmann::json& j, P2pDirection& d) {
  d.src = integer_or(j, "src", 0);
  d.dst = integer_or(j, "dst", 0);
  d.peer_access = j.value("peer_access", false);
  d.push_gbps = number_or(j, "push_gbps", -1);
  d.pull_gbps = number_or(j, "pull_gbps", -1);
  d.memcpy_gbps = number_or(j, "memcpy_gbps", -1);
  d.latency_us = number_or(j, "latency_us", -1);
}

void to_json(nlohmann::json& j, const P2pMeasurement& m) {
  j = nlohmann::json{{"status", m.status},   {"bus_ids", m.bus_ids},
                     {"bytes", m.bytes},     {"small_bytes", m.small_bytes},
                     {"repeats", m.repeats}, {"directions", m.directions},
                     {"note", m.note}};
}

void from_json(const nlohmann::json& j, P2pMeasurement& m) {
  m.status = j.value("status", "not run");
  m.bus_ids = strings_or_empty(j, "bus_ids");
  m.bytes = json_integer_or<std::uint64_t>(j, "bytes", 0);
  m.small_bytes = json_integer_or<std::uint64_t>(j, "small_bytes", 0);
  m.repeats = integer_or(j, "repeats", 0);
  m.directions = j.value("directions", std::vector<P2pDirection>{});
  m.note = j.value("note", "");
}

const NodePair* find_pair(const NodeFacts& facts, int a, int b) {
  for (const NodePair& pair : facts.pairs)
    if ((pair.a == a && pair.b == b) || (pair.a == b && pair.b == a)) return &pair;
  return nullptr;
}

NodePair* find_pair(NodeFacts& facts, int a, int b) {
  return const_cast<NodePair*>(find_pair(static_cast<const NodeFacts&>(facts), a, b));
}

const NodeGpu* find_gpu(const NodeFacts& facts, const std::string& bus_id) {
  const std::string wanted = to_lower(bus_id);
  for (const NodeGpu& gpu : facts.gpus)
    if (gpu.bus_id == wanted) return &gpu;
  return nullptr;
}

void to_json(nlohmann::json& j, const NodeGpu& g) {
  j = nlohmann::json{{"index", g.index},
                     {"bus_id", g.bus_id},
                     {"name", g.name},
                     {"sm", g.sm},
                     {"numa_node", g.numa_node},
                     {"local_cpus", g.local_cpus},
                     {"link_gen", g.link_gen},
                     {"link_width", g.link_width},
                     {"gpu_gen_max", g.gpu_gen_max},
                     {"gpu_width_max", g.gpu_width_max},
                     {"port_gen_max", g.port_gen_max},
                     {"port_width_max", g.port_width_max},
                     {"port", g.port},
                     {"iommu_group", g.iommu_group},
                     {"iommu_type", g.iommu_type},
                     {"nvlinks", g.nvlinks}};
}

void from_json(const nlohmann::json& j, NodeGpu& g) {
  g.index = integer_or(j, "index", 0);
  g.bus_id = to_lower(j.value("bus_id", ""));
  g.name = j.value("name", "");
  g.sm = integer_or(j, "sm", 0);
  g.numa_node = integer_or(j, "numa_node", -1);
  g.local_cpus = j.value("local_cpus", "");
  g.link_gen = integer_or(j, "link_gen", 0);
  g.link_width = integer_or(j, "link_width", 0);
  g.gpu_gen_max = integer_or(j, "gpu_gen_max", 0);
  g.gpu_width_max = integer_or(j, "gpu_width_max", 0);
  g.port_gen_max = integer_or(j, "port_gen_max", 0);
  g.port_width_max = integer_or(j, "port_width_max", 0);
  g.port = to_lower(j.value("port", ""));
  g.iommu_group = j.value("iommu_group", "");
  g.iommu_type = j.value("iommu_type", "");
  g.nvlinks = integer_or(j, "nvlinks", -1);
}

void to_json(nlohmann::json& j, const NodeBridge& b) {
  j = nlohmann::json{{"bus_id", b.bus_id},
                     {"vendor", b.vendor},
                     {"device", b.device},
                     {"port_type", b.port_type},
                     {"port_type_from", b.port_type_from},
                     {"parent", b.parent},
                     {"link_gen", b.link_gen},
                     {"link_width", b.link_width},
                     {"gen_max", b.gen_max},
                     {"width_max", b.width_max},
                     {"acs", b.acs},
                     {"acs_bits", b.acs_bits},
                     {"acs_redirects", b.acs_redirects}};
  j["acs_control"] = b.acs_control >= 0 ? nlohmann::json(b.acs_control) : nlohmann::json(nullptr);
}

void from_json(const nlohmann::json& j, NodeBridge& b) {
  b.bus_id = to_lower(j.value("bus_id", ""));
  b.vendor = j.value("vendor", "");
  b.device = j.value("device", "");
  b.port_type = j.value("port_type", "");
  b.port_type_from = j.value("port_type_from", "");
  b.parent = to_lower(j.value("parent", ""));
  b.link_gen = integer_or(j, "link_gen", 0);
  b.link_width = integer_or(j, "link_width", 0);
  b.gen_max = integer_or(j, "gen_max", 0);
  b.width_max = integer_or(j, "width_max", 0);
  b.acs = j.value("acs", "not read");
  b.acs_control = j.contains("acs_control") && j["acs_control"].is_number_integer()
                      ? json_integer<int>(j["acs_control"], "acs_control", 0, 0xffff)
                      : -1;
  b.acs_bits = j.value("acs_bits", "");
  b.acs_redirects = j.value("acs_redirects", false);
}

NcclTransportKind nccl_transport_kind(const std::string& name) {
  std::string first = name.substr(0, name.find_first_of("/ "));
  std::transform(first.begin(), first.end(), first.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (first == "P2P") return NcclTransportKind::p2p;
  if (first == "SHM") return NcclTransportKind::shm;
  if (first == "NET") return NcclTransportKind::net;
  if (first == "COLLNET") return NcclTransportKind::collnet;
  if (first == "NVLS") return NcclTransportKind::nvls;
  return NcclTransportKind::other;
}

void to_json(nlohmann::json& j, const NodePair& p) {
  std::vector<std::string> transports;
  for (const NcclPairTransport& transport : p.nccl_transports) transports.push_back(transport.name);
  j = nlohmann::json{{"a", p.a},
                     {"b", p.b},
                     {"path", path_class_id(p.path)},
                     {"bridges", p.bridges},
                     {"nvlinks", p.nvlinks},
                     {"p2p_read", p.p2p_read},
                     {"p2p_write", p.p2p_write},
                     {"p2p_atomics", p.p2p_atomics},
                     {"p2p_nvlink", p.p2p_nvlink},
                     {"nccl_path", p.nccl_path == PathClass::unknown ? "" : path_class_id(p.nccl_path)},
                     {"nccl_route", p.nccl_route == PathClass::unknown ? "" : path_class_id(p.nccl_route)},
                     {"nccl_transport", fmt::format("{}", fmt::join(transports, ", "))},
                     {"nccl_p2p_disabled", p.nccl_p2p_disabled}};
}

void from_json(const nlohmann::json& j, NodePair& p) {
  p.a = integer_or(j, "a", 0);
  p.b = integer_or(j, "b", 0);
  p.path = path_class_from_id(j.value("path", "unknown"));
  p.bridges = strings_or_empty(j, "bridges");
  p.nvlinks = integer_or(j, "nvlinks", -1);
  p.p2p_read = j.value("p2p_read", "");
  p.p2p_write = j.value("p2p_write", "");
  p.p2p_atomics = j.value("p2p_atomics", "");
  p.p2p_nvlink = j.value("p2p_nvlink", "");
  p.nccl_path = path_class_from_id(j.value("nccl_path", ""));
  p.nccl_route = path_class_from_id(j.value("nccl_route", ""));
  p.nccl_transports.clear();
  const std::string joined = j.value("nccl_transport", "");
  for (std::size_t start = 0; start < joined.size();) {
    std::size_t end = joined.find(", ", start);
    if (end == std::string::npos) end = joined.size();
    const std::string name = joined.substr(start, end - start);
    if (!name.empty()) p.nccl_transports.push_back({nccl_transport_kind(name), name});
    start = end + 2;
  }
  p.nccl_p2p_disabled = j.value("nccl_p2p_disabled", false);
}

void to_json(nlohmann::json& j, const RankOnNode& r) {
  j = nlohmann::json{{"rank", r.rank}, {"bus_id", r.bus_id}, {"cpus", r.cpus}};
}

void from_json(const nlohmann::json& j, RankOnNode& r) {
  r.rank = integer_or(j, "rank", 0);
  r.bus_id = to_lower(j.value("bus_id", ""));
  r.cpus = j.value("cpus", "");
}

void to_json(nlohmann::json& j, const NcclView& v) {
  j = nlohmann::json{{"topology_file", v.topology_file},
                     {"log_files", v.log_files},
                     {"version", v.version},
                     {"environment", v.environment},
                     {"notes", v.notes}};
}

void from_json(const nlohmann::json& j, NcclView& v) {
  v.topology_file = j.value("topology_file", "");
  v.log_files = strings_or_empty(j, "log_files");
  v.version = j.value("version", "");
  v.environment = strings_or_empty(j, "environment");
  v.notes = strings_or_empty(j, "notes");
}

void to_json(nlohmann::json& j, const IommuState& i) {
  j = nlohmann::json{{"mode", i.mode},
                     {"groups", i.groups},
                     {"types", i.types},
                     {"cmdline", i.cmdline_words},
                     {"evidence", i.evidence}};
}

void from_json(const nlohmann::json& j, IommuState& i) {
  i.mode = j.value("mode", "unknown");
  i.groups = integer_or(j, "groups", 0);
  i.types = strings_or_empty(j, "types");
  i.cmdline_words = j.value("cmdline", "");
  i.evidence = j.value("evidence", "");
}

void to_json(nlohmann::json& j, const NodeFacts& f) {
  j = nlohmann::json{{"host", f.host},
                     {"root", f.root},
                     {"sysfs_found", f.sysfs_found},
                     {"gpus", f.gpus},
                     {"bridges", f.bridges},
                     {"pairs", f.pairs},
                     {"iommu", f.iommu},
                     {"driver_version", f.driver_version},
                     {"cuda_driver_version", f.cuda_driver_version},
                     {"nccl_version", f.nccl_version},
                     {"nvml", f.nvml},
                     {"ranks", f.ranks},
                     {"nccl", f.nccl},
                     {"p2p", f.p2p},
                     {"unseen", f.unseen}};
}

void from_json(const nlohmann::json& j, NodeFacts& f) {
  if (!j.is_object()) throw std::invalid_argument("a node's facts must be a JSON object");
  f.host = j.value("host", "");
  f.root = j.value("root", "/");
  f.sysfs_found = j.value("sysfs_found", false);
  f.gpus = j.value("gpus", std::vector<NodeGpu>{});
  f.bridges = j.value("bridges", std::vector<NodeBridge>{});
  f.pairs = j.value("pairs", std::vector<NodePair>{});
  f.iommu = j.value("iommu", IommuState{});
  f.driver_version = j.value("driver_version", "");
  f.cuda_driver_version = j.value("cuda_driver_version", "");
  f.nccl_version = j.value("nccl_version", "");
  f.nvml = j.value("nvml", "");
  f.ranks = j.value("ranks", std::vector<RankOnNode>{});
  f.nccl = j.value("nccl", NcclView{});
  f.p2p = j.value("p2p", P2pMeasurement{});
  f.unseen = strings_or_empty(j, "unseen");
}

}  // namespace k25
