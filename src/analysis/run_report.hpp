// The report document (report.json): tool, run, topology, results, serve, attribution, fits. Versioned by
// schema_version.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/attribution.hpp"
#include "analysis/backend_table.hpp"
#include "analysis/latency_fit.hpp"
#include "analysis/live_step.hpp"
#include "analysis/phase_result.hpp"
#include "serve/serve_result.hpp"
#include "topology/topology_info.hpp"

namespace k25 {

// 2: empty STATS are null; fits weighted by relative error with alpha >= 0; headline, host_cores, serve
// vllm_bench_serve. 3: serve levels' output_unit, tokens_per_chunk_p50 and token_interval_ms; serve.profile
// and live_profile (the engine's profiler windows and their live step). 4: each result's `backend` (who ran
// the burst), `backend_results` (the other AllReduce backends' rows, --allreduce-backends) and the derived
// `allreduce_backends`. Versions 1 to 3 are still read (see report_reader.hpp).
inline constexpr int kReportSchemaVersion = 4;
inline constexpr int kOldestReadableSchemaVersion = 1;

struct ToolInfo {
  std::string name = "k25comm";
  std::string version;
  std::string git_sha;
};

struct RunInfo {
  std::string started_at, finished_at;  // UTC, ISO 8601
  int ranks = 0;
  std::vector<std::string> hosts;
  std::string transport;         // "mpi" | "nccl"
  std::string transport_reason;  // why --backend auto chose it
  std::string clock;             // what the timestamps are
  std::string config_path;
  nlohmann::json config;  // the effective config (after flags)
  std::string command_line;
  std::map<std::string, std::string> env;  // NCCL_* and OMPI_* variables
  std::string mpi_version, compiler;
  bool complete = true;  // false: interrupted or failed; results hold what was gathered
  std::string incomplete_reason;
  std::vector<std::string> notes;  // caveats the reader must see (e.g. one-rank NCCL measures launch cost)
  // Those of `notes` the analysis derived from the data (analysis/report_notes.hpp); the others the run
  // recorded. Written as report.json's run.derived_notes.
  std::vector<std::string> derived_notes;
  std::map<std::string, int> host_cores;  // online CPU cores of each host (oversubscription check)
};

// Appends `note` to the run's notes unless it is there already.
void add_note(RunInfo& run, const std::string& note);

struct RunReport {
  int schema_version = kReportSchemaVersion;
  ToolInfo tool;
  RunInfo run;
  TopologyInfo topology;
  std::vector<PhaseResult> results;  // the transport's own collectives (backend run.transport)
  // The AllReduce burst of every other backend (--allreduce-backends, report --backends-from), each row's
  // `backend` its name; rows it could not run say why (PhaseResult::not_run).
  std::vector<PhaseResult> backend_results;
  ServeReport serve;
  LiveProfile live_profile;  // the live step of each profiled serve level (written when present)
  // Derived by the analysis stage (analyze_report) from results and serve; written to report.json, and
  // recomputed, not read back, when a report is read.
  std::vector<AttributionRow> attribution;
  std::vector<LatencyFit> fits;  // latency = alpha + bytes / beta per phase and mode
  // One sentence per serve concurrency, or one over the token counts without serve (headline.hpp).
  std::vector<std::string> headline;
  BackendAnalysis backends;  // derived: the backends side by side (analysis/backend_table.hpp)
};

// Files a result under its backend: the transport's own rows in `results` (their backend set to the
// transport's name where a report before backends left it out), every other backend's in `backend_results`.
void file_result(RunReport& report, PhaseResult result);

void to_json(nlohmann::json& j, const ToolInfo& t);
void from_json(const nlohmann::json& j, ToolInfo& t);
void to_json(nlohmann::json& j, const RunInfo& r);
void from_json(const nlohmann::json& j, RunInfo& r);
void to_json(nlohmann::json& j, const RunReport& r);
void from_json(const nlohmann::json& j, RunReport& r);

}  // namespace k25
