// The rows of the nightly history, as one report gives them: one run row (where and with what it ran) and its
// figure rows (what it measured), read from the typed RunReport, never from report.json's field names.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_report.hpp"

namespace k25 {

// What a night ran on and with: the run row. `node` and `started_at` identify the run: a second report of
// the same run (a re-render, a merge) adds nothing to a store that has it.
struct RunRow {
  std::string node;        // the run's hosts joined by "+" (one name on one node)
  std::string started_at;  // UTC ISO 8601: the night
  std::string finished_at;
  std::string report_path;  // report.json as the store names it (relative to the store's folder when inside)
  int report_schema_version = 0;
  std::string tool_version;
  std::string commit;       // k25comm's git sha
  std::string config_hash;  // of the effective config without its output section (fnv1a-64, hex)
  std::string model;
  std::string topology;  // pcie | nvlink | mixed | host | emulated
  std::string gpus;      // "8x NVIDIA H100 80GB HBM3", empty on the host transport
  int gpu_count = 0;
  std::string driver, cuda, nccl, mpi;
  std::string transport;
  int ranks = 0;
  bool complete = true;
  bool wrong = false;           // some result had wrong elements
  bool oversubscribed = false;  // more ranks than cores on a host: its timings are the scheduler's
  std::map<std::string, std::string> nccl_env;  // the run's NCCL_* variables
  bool operator==(const RunRow&) const = default;
};

// Which figure of a night a row is: a result (phase, tokens asked, mode) or a serve level (phase "serve",
// its concurrency), the all-reduce backend, and which of its figures (statistic).
struct FigureKey {
  std::string phase;      // allreduce | dispatch | combine | allgather | reducescatter | serve
  int tokens = 0;         // tokens the sweep asked for (0 for serve)
  int concurrency = 0;    // serve levels (0 for results)
  std::string mode;       // eager | graph | decode ("" for serve)
  std::string backend;    // the all-reduce backend (figure_backend); "" for serve
  std::string statistic;  // burst | op | busbw | tpot | ttft | output_throughput
  auto operator<=>(const FigureKey&) const = default;
};

// One figure of one night: its median (value) and its own spread, in `unit`.
struct FigureRow {
  FigureKey key;
  double value = 0;              // p50 of a distribution, or the figure itself
  std::string unit;              // us | ms | GB/s | tok/s
  std::optional<double> spread;  // p90 / p50 - 1 of a distribution
  std::optional<double> p90, p99, mean;
  std::optional<long long> samples;  // trials (results) or completed requests (serve)
  bool operator==(const FigureRow&) const = default;
};

// One night of one node: its run row and figure rows.
struct HistoryNight {
  RunRow run;
  std::vector<FigureRow> figures;
  bool operator==(const HistoryNight&) const = default;
};

// The rows of `report`, read from `report_path` (recorded as given). Throws UsageError naming the path when
// the report has no run to file: no start time, no host, or nothing measured.
HistoryNight rows_from_report(const RunReport& report, const std::string& report_path);

// The all-reduce backend of a result (report.json results[].backend: "nccl", "mpi", "oneshot", "twoshot",
// "oneshot-pull", or a variant merged with --backends-from); for a report before that field, the transport's
// own: "nccl" for the nccl transport, "mpi" for the host transport.
std::string figure_backend(const RunReport& report, const PhaseResult& result);

// Where lower is better (times); higher is better for bandwidth and throughput.
bool lower_is_better(const std::string& statistic);

// The figure in words: "allreduce T=16 eager nccl burst", "serve C=8 tpot".
std::string figure_name(const FigureKey& key);

// What a night ran with, by field name (nccl, driver, cuda, commit, config, k25comm, mpi, gpus, topology,
// transport, ranks, model, and "env NAME" for each NCCL_* variable): what an upgrade or a change point names.
std::map<std::string, std::string> run_fields(const RunRow& run);

// The fields that differ between two nights' runs (a field one of them lacks reads ""), the versions first
// (nccl, driver, cuda, commit), then the config and the rest.
struct FieldChange {
  std::string field, before, after;
  bool operator==(const FieldChange&) const = default;
};
std::vector<FieldChange> changed_fields(const RunRow& before, const RunRow& after);

// The statistics the history judges (as `k25comm compare` does): the burst of each result, the TPOT and
// steady output throughput of each serve level.
bool judged_statistic(const std::string& statistic);

}  // namespace k25
