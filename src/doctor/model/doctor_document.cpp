// doctor.json's JSON form, both ways.
#include "doctor/model/doctor_document.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "common/json_integer.hpp"

namespace k25 {
namespace {

template <typename T>
std::vector<T> list_or_empty(const nlohmann::json& j, const char* key) {
  const auto found = j.find(key);
  if (found == j.end() || found->is_null()) return {};
  if (!found->is_array()) throw std::invalid_argument(fmt::format("'{}' must be a list", key));
  std::vector<T> list;
  for (const nlohmann::json& item : *found) list.push_back(item.get<T>());
  return list;
}

// A number, or a statistics object's p50 (or mean): nullopt for anything else.
std::optional<double> op_time(const nlohmann::json& value) {
  if (value.is_number()) return value.get<double>();
  if (value.is_object())
    for (const char* key : {"p50", "mean"})
      if (value.contains(key) && value[key].is_number()) return value[key].get<double>();
  return std::nullopt;
}

}  // namespace

void to_json(nlohmann::json& j, const BackendsSeen& b) {
  nlohmann::json runs = nlohmann::json::array();
  for (const BackendRun& run : b.runs) {
    nlohmann::json row = {{"kind", run.kind}, {"backend", run.backend}, {"count", run.count}};
    row["bytes"] = run.bytes ? nlohmann::json(*run.bytes) : nlohmann::json(nullptr);
    row["op_us"] = run.op_us ? nlohmann::json(*run.op_us) : nlohmann::json(nullptr);
    runs.push_back(std::move(row));
  }
  j = nlohmann::json{{"file", b.file}, {"status", b.status}, {"runs", runs}, {"notes", b.notes}};
}

void from_json(const nlohmann::json& j, BackendsSeen& b) {
  b.file = j.value("file", "");
  b.status = j.value("status", "");
  b.runs.clear();
  if (j.contains("runs") && j["runs"].is_array())
    for (const nlohmann::json& row : j["runs"]) {
      if (!row.is_object() || !row.contains("kind") || !row["kind"].is_string() || !row.contains("backend") ||
          !row["backend"].is_string())
        continue;
      BackendRun run;
      run.kind = row["kind"].get<std::string>();
      run.backend = row["backend"].get<std::string>();
      if (row.contains("bytes") && row["bytes"].is_number_unsigned())
        run.bytes = row["bytes"].get<std::uint64_t>();
      if (row.contains("count") && row["count"].is_number_integer())
        run.count = row["count"].get<long long>();
      if (row.contains("op_us")) run.op_us = op_time(row["op_us"]);
      b.runs.push_back(std::move(run));
    }
  b.notes.clear();
  if (j.contains("notes") && j["notes"].is_array())
    for (const nlohmann::json& note : j["notes"])
      if (note.is_string()) b.notes.push_back(note.get<std::string>());
}

void to_json(nlohmann::json& j, const InputRead& i) {
  nlohmann::json families = nlohmann::json::array();
  for (const FamilyRead& family : i.families)
    families.push_back({{"family", family.family}, {"added", family.added}});
  j = nlohmann::json{{"file", i.file}, {"families", families}, {"left_out", i.left_out}};
}

void from_json(const nlohmann::json& j, InputRead& i) {
  i.file = j.value("file", "");
  i.families.clear();
  if (j.contains("families") && j["families"].is_array())
    for (const nlohmann::json& family : j["families"])
      if (family.is_object()) i.families.push_back({family.value("family", ""), family.value("added", "")});
  i.left_out = j.value("left_out", "");
}

void to_json(nlohmann::json& j, const DoctorDocument& d) {
  const NodeModel& m = d.model;
  j = nlohmann::json{{"schema_version", d.schema_version},
                     {"tool", {{"name", "k25comm"}, {"version", d.tool_version}, {"git_sha", d.git_sha}}},
                     {"created_at", d.created_at},
                     {"command_line", d.command_line},
                     {"headline", d.headline},
                     {"node", m.facts},
                     {"host_from", m.host_from},
                     {"this_host", m.this_host},
                     {"observations", m.observations},
                     {"disagreements", m.disagreements},
                     {"nccl_log", m.nccl},
                     {"bandwidth", m.bandwidth},
                     {"dcgm", m.dcgm},
                     {"inputs", d.inputs},
                     {"backends", d.backends},
                     {"verdicts", d.verdicts}};
}

void from_json(const nlohmann::json& j, DoctorDocument& d) {
  if (!j.is_object()) throw std::invalid_argument("not a JSON object");
  d.schema_version = json_integer_or(j, "schema_version", 1, 0, 1000);
  if (d.schema_version > kDoctorSchemaVersion)
    throw std::invalid_argument(fmt::format("schema_version {} is newer than this k25comm reads ({})",
                                            d.schema_version, kDoctorSchemaVersion));
  d.source = "doctor.json";
  if (j.contains("tool") && j["tool"].is_object()) {
    d.tool_version = j["tool"].value("version", "");
    d.git_sha = j["tool"].value("git_sha", "");
  }
  d.created_at = j.value("created_at", "");
  d.command_line = j.value("command_line", "");
  d.headline = j.value("headline", "");
  NodeModel& m = d.model;
  m.facts = j.at("node").get<NodeFacts>();
  m.host_from = j.value("host_from", "");
  // Schema 1 read this host's sysfs whenever it ran: its facts are this host's.
  m.this_host = j.value("this_host", d.schema_version < 2);
  m.observations = list_or_empty<Observation>(j, "observations");
  m.disagreements = list_or_empty<Disagreement>(j, "disagreements");
  m.nccl = j.contains("nccl_log") && j["nccl_log"].is_object() ? j["nccl_log"].get<NcclSeen>() : NcclSeen{};
  m.bandwidth = list_or_empty<PairBandwidth>(j, "bandwidth");
  m.dcgm = list_or_empty<DcgmResult>(j, "dcgm");
  d.inputs = list_or_empty<InputRead>(j, "inputs");
  d.backends = j.contains("backends") && j["backends"].is_object() ? j["backends"].get<BackendsSeen>()
                                                                   : BackendsSeen{};
  d.verdicts.clear();
  if (j.contains("verdicts") && j["verdicts"].is_array())
    for (const nlohmann::json& verdict : j["verdicts"]) d.verdicts.push_back(verdict.get<NodeVerdict>());
}

std::string doctor_json_text(const DoctorDocument& document) {
  return nlohmann::json(document).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

bool looks_like_doctor_json(const nlohmann::json& json) {
  return json.is_object() && json.contains("node") && json.contains("verdicts");
}

}  // namespace k25
