// The node model's subjects, look-ups and JSON form (every field optional on reading: the document may come
// from another version).
#include "doctor/model/node_model.hpp"

#include <fmt/format.h>

#include "common/json_integer.hpp"

namespace k25 {
namespace {

int integer_or(const nlohmann::json& j, const char* key, int otherwise) {
  return json_integer_or(j, key, otherwise, -1, 1 << 30);
}

double number_or(const nlohmann::json& j, const char* key, double otherwise) {
  const auto found = j.find(key);
  return found != j.end() && found->is_number() ? found->get<double>() : otherwise;
}

FactSource source_or(const nlohmann::json& j, const char* key) {
  const auto found = j.find(key);
  return found != j.end() && found->is_object() ? found->get<FactSource>() : FactSource{};
}

FactKind kind_or(const nlohmann::json& j) {
  const auto kind = enum_from_name<FactKind>(j.value("fact", ""));
  return kind ? *kind : FactKind::gpu_name;
}

template <typename T, typename Read>
std::vector<T> list_of(const nlohmann::json& j, const char* key, Read read) {
  std::vector<T> list;
  const auto found = j.find(key);
  if (found == j.end() || !found->is_array()) return list;
  for (const nlohmann::json& item : *found)
    if (item.is_object()) list.push_back(read(item));
  return list;
}

nlohmann::json rank_json(const NcclRankGpu& r) {
  return {{"rank", r.rank},         {"bus_id", r.bus_id}, {"cuda_dev", r.cuda_dev},
          {"nvml_dev", r.nvml_dev}, {"host", r.host},     {"source", r.source}};
}

NcclRankGpu rank_of(const nlohmann::json& j) {
  return {integer_or(j, "rank", -1),     j.value("bus_id", ""), integer_or(j, "cuda_dev", -1),
          integer_or(j, "nvml_dev", -1), j.value("host", ""),   source_or(j, "source")};
}

nlohmann::json communicator_json(const NcclCommunicator& c) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const NcclRankGpu& rank : c.ranks) ranks.push_back(rank_json(rank));
  return {{"key", c.key},           {"nranks", c.nranks}, {"ranks", ranks},
          {"complete", c.complete}, {"rings", c.rings},   {"trees", c.trees}};
}

NcclCommunicator communicator_of(const nlohmann::json& j) {
  NcclCommunicator c;
  c.key = j.value("key", "");
  c.nranks = integer_or(j, "nranks", 0);
  c.ranks = list_of<NcclRankGpu>(j, "ranks", rank_of);
  c.complete = j.value("complete", false);
  c.rings = integer_or(j, "rings", 0);
  c.trees = integer_or(j, "trees", 0);
  return c;
}

nlohmann::json connection_json(const NcclRankConnection& c) {
  return {{"communicator", c.communicator}, {"from_rank", c.from_rank}, {"to_rank", c.to_rank},
          {"from_device", c.from_device},   {"to_device", c.to_device}, {"transport", c.transport.name},
          {"channels", c.channels},         {"gpu_a", c.gpu_a},         {"gpu_b", c.gpu_b},
          {"matched_by", c.matched_by},     {"source", c.source}};
}

NcclRankConnection connection_of(const nlohmann::json& j) {
  NcclRankConnection c;
  c.communicator = j.value("communicator", "");
  c.from_rank = integer_or(j, "from_rank", -1);
  c.to_rank = integer_or(j, "to_rank", -1);
  c.from_device = j.value("from_device", "");
  c.to_device = j.value("to_device", "");
  c.transport.name = j.value("transport", "");
  c.transport.kind = nccl_transport_kind(c.transport.name);
  c.channels = integer_or(j, "channels", 0);
  c.gpu_a = integer_or(j, "gpu_a", -1);
  c.gpu_b = integer_or(j, "gpu_b", -1);
  c.matched_by = j.value("matched_by", "");
  c.source = source_or(j, "source");
  return c;
}

}  // namespace

std::string gpu_subject(int index) {
  return fmt::format("GPU {}", index);
}

std::string pair_subject(int a, int b) {
  return a <= b ? fmt::format("GPU pair {}-{}", a, b) : fmt::format("GPU pair {}-{}", b, a);
}

std::string bridge_subject(const std::string& bus_id) {
  return "bridge " + bus_id;
}

std::vector<const Observation*> observations_of(const NodeModel& model, const std::string& subject,
                                                FactKind kind) {
  std::vector<const Observation*> found;
  for (const Observation& observation : model.observations)
    if (observation.kind == kind && observation.subject == subject) found.push_back(&observation);
  return found;
}

std::vector<FactSource> sources_of(const NodeModel& model, const std::string& subject, FactKind kind) {
  std::vector<FactSource> sources;
  for (const Observation* observation : observations_of(model, subject, kind))
    sources.push_back(observation->source);
  return sources;
}

void to_json(nlohmann::json& j, const Observation& o) {
  j = nlohmann::json{
      {"subject", o.subject}, {"fact", to_string(o.kind)}, {"value", o.value}, {"source", o.source}};
}

void from_json(const nlohmann::json& j, Observation& o) {
  o.subject = j.value("subject", "");
  o.kind = kind_or(j);
  o.value = j.value("value", "");
  o.source = source_or(j, "source");
}

void to_json(nlohmann::json& j, const Disagreement& d) {
  j = nlohmann::json{{"subject", d.subject}, {"fact", to_string(d.kind)}, {"said", d.said}};
}

void from_json(const nlohmann::json& j, Disagreement& d) {
  d.subject = j.value("subject", "");
  d.kind = kind_or(j);
  d.said = list_of<Observation>(j, "said", [](const nlohmann::json& o) { return o.get<Observation>(); });
}

void to_json(nlohmann::json& j, const NcclSeen& n) {
  nlohmann::json versions = nlohmann::json::array(), settings = nlohmann::json::array(),
                 communicators = nlohmann::json::array(), connections = nlohmann::json::array(),
                 shared = nlohmann::json::array();
  for (const NcclVersionSeen& v : n.versions)
    versions.push_back({{"version", v.version}, {"source", v.source}});
  for (const NcclSetting& s : n.settings)
    settings.push_back({{"name", s.name}, {"value", s.value}, {"source", s.source}});
  for (const NcclCommunicator& c : n.communicators) communicators.push_back(communicator_json(c));
  for (const NcclRankConnection& c : n.connections) connections.push_back(connection_json(c));
  for (const NcclSharedMemory& m : n.shared_memory)
    shared.push_back(
        {{"needed", m.needed}, {"available", m.available}, {"cuda_arch", m.cuda_arch}, {"source", m.source}});
  j = nlohmann::json{{"versions", versions},           {"settings", settings},
                     {"communicators", communicators}, {"connections", connections},
                     {"shared_memory", shared},        {"warnings", n.warnings}};
}

void from_json(const nlohmann::json& j, NcclSeen& n) {
  n.versions = list_of<NcclVersionSeen>(j, "versions", [](const nlohmann::json& v) {
    return NcclVersionSeen{v.value("version", ""), source_or(v, "source")};
  });
  n.settings = list_of<NcclSetting>(j, "settings", [](const nlohmann::json& s) {
    return NcclSetting{s.value("name", ""), s.value("value", ""), source_or(s, "source")};
  });
  n.communicators = list_of<NcclCommunicator>(j, "communicators", communicator_of);
  n.connections = list_of<NcclRankConnection>(j, "connections", connection_of);
  n.shared_memory = list_of<NcclSharedMemory>(j, "shared_memory", [](const nlohmann::json& m) {
    return NcclSharedMemory{json_integer_or<long>(m, "needed", 0, 0, 1L << 40),
                            json_integer_or<long>(m, "available", 0, 0, 1L << 40),
                            integer_or(m, "cuda_arch", 0), source_or(m, "source")};
  });
  n.warnings =
      list_of<FactSource>(j, "warnings", [](const nlohmann::json& s) { return s.get<FactSource>(); });
}

void to_json(nlohmann::json& j, const PairBandwidth& b) {
  j = nlohmann::json{{"src", b.src},
                     {"dst", b.dst},
                     {"p2p_enabled_gbps", b.p2p_enabled_gbps},
                     {"p2p_disabled_gbps", b.p2p_disabled_gbps},
                     {"bidirectional_enabled_gbps", b.bidirectional_enabled_gbps},
                     {"bidirectional_disabled_gbps", b.bidirectional_disabled_gbps},
                     {"tool", b.tool},
                     {"enabled_source", b.enabled_source},
                     {"disabled_source", b.disabled_source}};
}

void from_json(const nlohmann::json& j, PairBandwidth& b) {
  b.src = integer_or(j, "src", -1);
  b.dst = integer_or(j, "dst", -1);
  b.p2p_enabled_gbps = number_or(j, "p2p_enabled_gbps", -1);
  b.p2p_disabled_gbps = number_or(j, "p2p_disabled_gbps", -1);
  b.bidirectional_enabled_gbps = number_or(j, "bidirectional_enabled_gbps", -1);
  b.bidirectional_disabled_gbps = number_or(j, "bidirectional_disabled_gbps", -1);
  b.tool = j.value("tool", "");
  b.enabled_source = source_or(j, "enabled_source");
  b.disabled_source = source_or(j, "disabled_source");
}

void to_json(nlohmann::json& j, const DcgmResult& r) {
  j = nlohmann::json{
      {"test", r.test}, {"gpu", r.gpu}, {"status", r.status}, {"detail", r.detail}, {"source", r.source}};
}

void from_json(const nlohmann::json& j, DcgmResult& r) {
  r.test = j.value("test", "");
  r.gpu = integer_or(j, "gpu", -1);
  r.status = j.value("status", "");
  r.detail = j.value("detail", "");
  r.source = source_or(j, "source");
}

}  // namespace k25
