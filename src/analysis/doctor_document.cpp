// doctor.json's JSON form, and the readers that turn a report or a capture into the same document.
#include "analysis/doctor_document.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/json_integer.hpp"
#include "topology/topology_info.hpp"

namespace k25 {
namespace {

nlohmann::json verdict_json(const NodeVerdict& v) {
  return {{"id", v.id},   {"severity", v.severity}, {"finding", v.finding}, {"cost", v.cost},
          {"fix", v.fix}, {"source", v.source},     {"url", v.url},         {"line", v.line()}};
}

nlohmann::json backends_json(const BackendsSeen& seen) {
  nlohmann::json runs = nlohmann::json::array();
  for (const BackendRun& run : seen.runs) {
    nlohmann::json row = {{"kind", run.kind}, {"backend", run.backend}, {"count", run.count}};
    row["bytes"] = run.bytes ? nlohmann::json(*run.bytes) : nlohmann::json(nullptr);
    row["op_us"] = run.op_us ? nlohmann::json(*run.op_us) : nlohmann::json(nullptr);
    runs.push_back(std::move(row));
  }
  return {{"file", seen.file}, {"status", seen.status}, {"runs", runs}, {"notes", seen.notes}};
}

// A number, or a statistics object's p50 (or mean): nullopt for anything else.
std::optional<double> op_time(const nlohmann::json& value) {
  if (value.is_number()) return value.get<double>();
  if (value.is_object())
    for (const char* key : {"p50", "mean"})
      if (value.contains(key) && value[key].is_number()) return value[key].get<double>();
  return std::nullopt;
}

// Node facts from an older report's per-rank GPU records: links and versions, no paths.
NodeFacts facts_from_gpus(const TopologyInfo& topology) {
  NodeFacts facts;
  facts.nvml = "not asked: read from an older report";
  for (const GpuInfo& gpu : topology.gpus) {
    if (!facts.host.empty() && gpu.host != facts.host) continue;
    facts.host = gpu.host;
    NodeGpu node;
    node.index = static_cast<int>(facts.gpus.size());
    node.bus_id = gpu.bus_id;
    node.name = gpu.name;
    node.link_gen = gpu.pcie_gen;
    node.link_width = gpu.pcie_width;
    node.gpu_gen_max = gpu.pcie_gen_max;
    node.gpu_width_max = gpu.pcie_width_max;
    node.nvlinks = gpu.nvlinks;
    facts.driver_version = gpu.driver_version;
    facts.gpus.push_back(node);
  }
  facts.nccl_version = topology.nccl_version;
  facts.unseen.push_back("paths, bridges, ACS and the IOMMU: the report predates doctor's node facts");
  return facts;
}

// One of capture.json's trace.backend_rules ({backend, ranks, rule, source}) as a sentence: "BACKEND ran on N
// ranks: RULE (source: SOURCE)"; empty where it has no backend or rule.
std::string backend_rule_note(const nlohmann::json& rule) {
  const auto text = [&](const char* key) {
    return rule.is_object() && rule.contains(key) && rule[key].is_string() ? rule[key].get<std::string>()
                                                                           : std::string();
  };
  const std::string backend = text("backend"), words = text("rule"), source = text("source");
  if (backend.empty() || words.empty()) return {};
  const bool has_ranks = rule.contains("ranks") && rule["ranks"].is_number_integer();
  return fmt::format("{} ran{}: {}{}", backend,
                     has_ranks ? fmt::format(" on {} ranks", rule["ranks"].get<long long>()) : "", words,
                     source.empty() ? "" : " (source: " + source + ")");
}

}  // namespace

BackendsSeen backends_from_capture(const nlohmann::json& capture, const std::string& file) {
  BackendsSeen seen;
  seen.file = file;
  const nlohmann::json* trace =
      capture.is_object() && capture.contains("trace") ? &capture["trace"] : nullptr;
  if (trace == nullptr || !trace->is_object() || !trace->contains("backends")) {
    seen.status = "no trace.backends in the capture: nothing to compare";
    return seen;
  }
  const nlohmann::json& rows = (*trace)["backends"];
  if (!rows.is_array()) {
    seen.status = "trace.backends is not a list: nothing read";
    return seen;
  }
  int skipped = 0;
  for (const nlohmann::json& row : rows) {
    if (!row.is_object() || !row.contains("kind") || !row["kind"].is_string() || !row.contains("backend") ||
        !row["backend"].is_string()) {
      ++skipped;
      continue;
    }
    BackendRun run;
    run.kind = row["kind"].get<std::string>();
    run.backend = row["backend"].get<std::string>();
    if (row.contains("bytes") && row["bytes"].is_number_unsigned())
      run.bytes = row["bytes"].get<std::uint64_t>();
    if (row.contains("count") && row["count"].is_number_integer()) run.count = row["count"].get<long long>();
    if (row.contains("op_us")) run.op_us = op_time(row["op_us"]);
    seen.runs.push_back(std::move(run));
  }
  if (trace->contains("backend_rules") && (*trace)["backend_rules"].is_array())
    for (const nlohmann::json& rule : (*trace)["backend_rules"])
      if (const std::string note = backend_rule_note(rule); !note.empty()) seen.notes.push_back(note);
  seen.status =
      skipped == 0 ? "read" : fmt::format("read; {} rows without a kind and a backend left out", skipped);
  return seen;
}

void derive_verdicts(DoctorDocument& document) {
  document.verdicts = node_verdicts(document.node);
  // The backends' notes go before what could not be seen, as in verdict_kinds()'s order.
  auto unseen = std::find_if(document.verdicts.begin(), document.verdicts.end(),
                             [](const NodeVerdict& v) { return v.severity == "unseen"; });
  for (const std::string& note : document.backends.notes)
    unseen = document.verdicts.insert(unseen, backend_rule_verdict(note)) + 1;
  document.headline = node_headline(document.node, document.verdicts);
}

nlohmann::json doctor_json(const DoctorDocument& document) {
  nlohmann::json verdicts = nlohmann::json::array();
  for (const NodeVerdict& verdict : document.verdicts) verdicts.push_back(verdict_json(verdict));
  return {{"schema_version", document.schema_version},
          {"tool", {{"name", "k25comm"}, {"version", document.tool_version}, {"git_sha", document.git_sha}}},
          {"created_at", document.created_at},
          {"command_line", document.command_line},
          {"headline", document.headline},
          {"node", document.node},
          {"backends", backends_json(document.backends)},
          {"verdicts", verdicts}};
}

std::string doctor_json_text(const DoctorDocument& document) {
  return doctor_json(document).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

DoctorDocument doctor_input_from_json(const nlohmann::json& json, const std::string& file) {
  DoctorDocument document;
  try {
    if (!json.is_object()) throw std::invalid_argument("not a JSON object");
    if (json.contains("node") && json.contains("verdicts")) {
      document.schema_version = json_integer_or(json, "schema_version", 0, 0, 1000);
      if (document.schema_version > kDoctorSchemaVersion)
        throw std::invalid_argument(fmt::format("schema_version {} is newer than this k25comm reads ({})",
                                                document.schema_version, kDoctorSchemaVersion));
      document.source = "doctor.json";
      document.node = json["node"].get<NodeFacts>();
      if (json.contains("backends") && json["backends"].is_object()) {
        const nlohmann::json& seen = json["backends"];
        const nlohmann::json as_capture = {
            {"trace", {{"backends", seen.value("runs", nlohmann::json::array())}}}};
        document.backends = backends_from_capture(as_capture, seen.value("file", ""));
        if (document.backends.file.empty()) document.backends.status = seen.value("status", "");
        if (seen.contains("notes") && seen["notes"].is_array())
          for (const nlohmann::json& note : seen["notes"])
            if (note.is_string()) document.backends.notes.push_back(note.get<std::string>());
      }
      document.created_at = json.value("created_at", "");
    } else if (json.contains("topology") && json.contains("run")) {
      const TopologyInfo topology = json["topology"].get<TopologyInfo>();
      const nlohmann::json& nodes = json["topology"].value("nodes", nlohmann::json::array());
      if (nodes.is_array() && !nodes.empty()) {
        document.node = nodes[0].get<NodeFacts>();
        if (document.node.nccl_version.empty()) document.node.nccl_version = topology.nccl_version;
        if (nodes.size() > 1)
          document.node.unseen.push_back(fmt::format("the report has {} hosts; compared: the first, {}",
                                                     nodes.size(), document.node.host));
      } else {
        document.node = facts_from_gpus(topology);
      }
      document.source = fmt::format("report.json (host {})", document.node.host);
      document.backends.status = "a report carries no trace.backends";
    } else if (json.contains("trace") || json.contains("schema_version")) {
      document.source = "capture.json";
      document.backends = backends_from_capture(json, file);
      document.node.unseen.push_back("node facts: a capture carries none");
    } else {
      throw std::invalid_argument(
          "neither doctor.json (node, verdicts), report.json (run, topology) nor capture.json (trace)");
    }
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{}: {}", file, e.what()));
  }
  derive_verdicts(document);
  return document;
}

}  // namespace k25
