// doctor.json: one host's node facts, the all-reduce backends a trace showed (from capture.json's
// trace.backends), the verdicts and the headline. Versioned by schema_version; `doctor --compare` reads it
// back, and reads report.json and capture.json into the same shape.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/node_verdicts.hpp"
#include "topology/node_facts.hpp"

namespace k25 {

inline constexpr int kDoctorSchemaVersion = 1;

// One row of capture.json's trace.backends: which backend ran a collective kind at a size, how often, its
// time.
struct BackendRun {
  std::string kind;                    // "AllReduce"
  std::optional<std::uint64_t> bytes;  // nullopt where the trace did not tell the size
  std::string backend;  // "nccl", "vllm custom all-reduce 1-stage", "torch symm-mem one-shot", ...
  long long count = 0;
  std::optional<double> op_us;  // per op (p50 where the capture gives statistics)
};

struct BackendsSeen {
  std::string file;    // the capture.json read, empty where none was given
  std::string status;  // "read", or why there is nothing ("capture.json has no trace.backends")
  std::vector<BackendRun> runs;
  // Where an engine's documented rule would have chosen another backend: "BACKEND ran on N ranks: RULE
  // (source: SOURCE)", from trace.backend_rules.
  std::vector<std::string> notes;
};

// capture.json's trace.backends and trace.backend_rules (each a note), read defensively: absent or of
// another shape gives no runs and a status saying so, never an exception.
BackendsSeen backends_from_capture(const nlohmann::json& capture, const std::string& file);

struct DoctorDocument {
  int schema_version = kDoctorSchemaVersion;
  std::string tool_version, git_sha, created_at, command_line;
  std::string source;  // what it was read from: "doctor.json", "report.json (host h1)", "capture.json"
  NodeFacts node;
  BackendsSeen backends;
  std::vector<NodeVerdict> verdicts;  // derived from node (recomputed when read)
  std::string headline;               // derived
};

// Sets verdicts (node_verdicts plus the backends' notes) and headline from node and backends.
void derive_verdicts(DoctorDocument& document);

nlohmann::json doctor_json(const DoctorDocument& document);
// doctor.json's text: doctor_json indented, bytes that are not UTF-8 (a log's or a dump's) replaced, never
// thrown.
std::string doctor_json_text(const DoctorDocument& document);

// doctor.json, report.json (its topology.nodes, first host; or its topology.gpus where an older report has no
// nodes) or capture.json (backends only), told apart by their members. Throws UsageError "FILE: why" for JSON
// that is none of them or has fields of the wrong type.
DoctorDocument doctor_input_from_json(const nlohmann::json& document, const std::string& file);

}  // namespace k25
