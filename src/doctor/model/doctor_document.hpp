// doctor.json, the one typed document beside its writer: the node model (the node facts, as report.json's
// topology.nodes[] holds them, and what pasted inputs added: observations, disagreements, NCCL's
// communicators and connections, bandwidth matrices, DCGM), the inputs read and what each added, the
// all-reduce backends a capture saw, the verdicts and the headline. Every reader of doctor.json (doctor
// --compare, the tests, tools/plot-doctor through the fields a test checks) goes through from_json here;
// schema_version says which shape a file has, and files of schema 1 (k25comm before the pasted inputs) read
// too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "doctor/model/node_model.hpp"
#include "doctor/model/node_verdict.hpp"

namespace k25 {

inline constexpr int kDoctorSchemaVersion = 2;

// One row of capture.json's trace.backends: which backend ran a collective kind at a size, how often, its
// time.
struct BackendRun {
  std::string kind;                    // "AllReduce"
  std::optional<std::uint64_t> bytes;  // nullopt where the trace did not tell the size
  std::string backend;  // "nccl", "vllm custom all-reduce 1-stage", "torch symm-mem one-shot", ...
  long long count = 0;
  std::optional<double> op_us;  // per op (p50 where the capture gives statistics)

  bool operator==(const BackendRun&) const = default;
};

struct BackendsSeen {
  std::string file;    // the capture.json read, empty where none was given
  std::string status;  // "read", or why there is nothing ("capture.json has no trace.backends")
  std::vector<BackendRun> runs;
  // Where an engine's documented rule would have chosen another backend: "BACKEND ran on N ranks: RULE
  // (source: SOURCE)", from trace.backend_rules.
  std::vector<std::string> notes;

  bool operator==(const BackendsSeen&) const = default;
};

// What one input family found in a file.
struct FamilyRead {
  std::string family;  // the family's name ("nvidia-smi topo -m")
  std::string added;   // what it added, in words ("8 GPUs, 28 pairs' paths, 4 NICs")

  bool operator==(const FamilyRead&) const = default;
};

// One file doctor was given (--from, --nccl-log, --nccl-topo) and what came of it.
struct InputRead {
  std::string file;
  std::vector<FamilyRead> families;  // every family found in it, in the table's order
  std::string left_out;              // why nothing was read ("no family of doctor's"), empty where read

  bool operator==(const InputRead&) const = default;
};

struct DoctorDocument {
  int schema_version = kDoctorSchemaVersion;
  std::string tool_version, git_sha, created_at, command_line;
  std::string source;  // what it was read from: "doctor.json", "report.json (host h1)", "capture.json"
  NodeModel model;
  std::vector<InputRead> inputs;
  BackendsSeen backends;
  std::vector<NodeVerdict> verdicts;  // derived from the model and the backends
  std::string headline;               // derived

  bool operator==(const DoctorDocument&) const = default;
};

void to_json(nlohmann::json& j, const BackendsSeen& b);
void from_json(const nlohmann::json& j, BackendsSeen& b);
void to_json(nlohmann::json& j, const InputRead& i);
void from_json(const nlohmann::json& j, InputRead& i);
// doctor.json's members: schema_version, tool, created_at, command_line, headline, node (the facts),
// host_from, this_host, observations, disagreements, nccl_log, bandwidth, dcgm, inputs, backends, verdicts.
void to_json(nlohmann::json& j, const DoctorDocument& d);
// Every member optional; wrong types refused with std::invalid_argument or nlohmann's type_error; a
// schema_version newer than kDoctorSchemaVersion refused.
void from_json(const nlohmann::json& j, DoctorDocument& d);

// doctor.json's text: the document indented, bytes that are not UTF-8 (a log's or a dump's) replaced, never
// thrown.
std::string doctor_json_text(const DoctorDocument& document);

// Whether `json` has doctor.json's shape (a node and verdicts).
bool looks_like_doctor_json(const nlohmann::json& json);

}  // namespace k25
