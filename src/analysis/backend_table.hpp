// The AllReduce backends side by side (--allreduce-backends, report --backends-from): per token count a table
// of every backend's burst, its ratio to the default (the transport's own: nccl, mpi on the host transport),
// the best (never a WRONG backend), the one-shot/two-shot crossover size, the headline sentence, and, with
// serve figures, what the best would do to TPOT. Derived from a report's results; written to report.json as
// `allreduce_backends` and recomputed, not read back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/attribution.hpp"
#include "analysis/phase_result.hpp"

namespace k25 {

// One backend at one token count. Figures are of the table's mode (graph where it was measured, else eager,
// else decode); decode_* of the decode mode where it ran.
struct AllreduceBackendRow {
  std::string backend;
  bool is_default = false;
  std::optional<double> op_p50_us, op_p90_us;  // one AllReduce, the slowest rank's
  std::optional<double> step_p50_us;           // the burst of one decode step
  std::optional<double> decode_step_p50_us;    // decode mode: the step with its compute gaps
  std::optional<double> decode_comm_p50_us;    // decode mode: its communication (step minus gaps)
  std::optional<double> ratio;                 // step p50 / the default's, same tokens and mode
  std::uint64_t wrong = 0;
  bool checked = false;
  std::string not_run;  // why it did not run (no figures)
  bool best = false;
  bool usable() const { return not_run.empty() && wrong == 0 && step_p50_us.has_value(); }
};

struct AllreduceBackendTable {
  int tokens = 0;  // requested
  TimingMode mode = TimingMode::eager;
  std::uint64_t bytes_per_op = 0;
  int ops_per_step = 0;
  std::vector<AllreduceBackendRow> rows;  // the default first, then in the report's order
  std::string best;                       // empty where no backend is usable
};

// Where one-shot stops being the faster peer backend: between the largest op size it won and the smallest
// two-shot won after it (text says it where one won every size).
struct BackendCrossover {
  std::optional<std::uint64_t> oneshot_up_to_bytes, twoshot_from_bytes;
  std::string text;
};

// What the best backend at T = C would do to TPOT at concurrency C: the default's burst, measured, taken out,
// the best's, measured in the same replay, put in ("measured in replay": TPOT itself is not re-measured).
struct BackendTpotEffect {
  int concurrency = 0;
  int tokens = 0;
  std::string backend;
  TimingMode mode = TimingMode::eager;
  double tpot_ms = 0;
  double default_burst_ms = 0, best_burst_ms = 0;
  double new_tpot_ms = 0;
};

struct BackendAnalysis {
  std::string default_backend;  // the transport's own
  std::vector<AllreduceBackendTable> tables;
  BackendCrossover crossover;
  std::vector<BackendTpotEffect> tpot;
  std::vector<std::string> headline;  // the backends' sentences of the report's headline (without tags)
  bool present() const { return !tables.empty(); }
};

// `results` are the transport's own rows (backend `default_backend`), `alternatives` every other backend's;
// nothing where no alternative exists. `attribution` (serve figures) gives the TPOT effects.
BackendAnalysis analyze_backends(const std::vector<PhaseResult>& results,
                                 const std::vector<PhaseResult>& alternatives,
                                 const std::string& default_backend,
                                 const std::vector<AttributionRow>& attribution);

void to_json(nlohmann::json& j, const BackendAnalysis& analysis);

}  // namespace k25
