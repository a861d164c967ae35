// The documents `k25comm predict` reads, in one form each: the base (what a step costs now, per batch or
// concurrency, and which part of it is communication) and an alternative (what one op costs there, by kind
// and size).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace k25 {

// One collective kind of the base's step at one batch.
struct BaseKind {
  std::string kind;         // normalized (kind_names.hpp): "allreduce", "alltoallv", "allgather", ...
  std::string dtype;        // "bf16", "fp32", ...; empty where the base does not say
  double bytes = 0;         // per op, as nccl-tests counts an op's size
  double ops_per_step = 0;  // ops of this kind in one step
  double comm_us = 0;       // this kind's communication in one step, p50 (the join's wait included)
  double hidden_us = 0;     // of comm_us, the part that ran beside compute (overlapped), p50
  // Per op: the wait for the last rank to arrive, which a faster link does not shorten; none where the base
  // has no join information.
  std::optional<double> wait_us;
  std::string wait_source;  // where wait_us comes from, in words
};

// One batch (or serve concurrency) of the base.
struct BaseLevel {
  int batch = 0;                   // concurrency where a TPOT is known, else the step's batch (tokens)
  double step_us = 0;              // the step as measured: TPOT where known, else the step's wall time, p50
  double step_p90_us = 0;          // the same at p90 (= p50 where the base has no distribution)
  bool step_is_tpot = false;       // step_us is a measured TPOT (serve), not a step's wall time
  std::vector<BaseKind> kinds;     // in the base's order
  std::vector<std::string> notes;  // caveats of this level
};

struct BaseDocument {
  std::string path;
  std::string format;     // "capture.json" | "report.json"
  std::string step_what;  // what a level's step is, in words ("trace decode step wall time", ...)
  int ranks = 0;          // 0: unknown
  std::vector<BaseLevel> levels;
  std::vector<std::string> notes;
};

// One measured size of an alternative's curve.
struct AltPoint {
  double bytes = 0;
  double op_us = 0;                 // p50 per op (or the only figure given)
  std::optional<double> op_p90_us;  // where the input has it
};

struct AltCurve {
  std::string kind;              // normalized
  std::string dtype;             // empty where not said
  std::vector<AltPoint> points;  // sorted by bytes, one per size
};

struct AltDocument {
  std::string path;
  std::string format;  // "replay report" | "nccl-tests text" | "nccl-tests JSON" | "CSV"
  std::string label;   // the name it goes by in the output ("nvlink-node")
  std::string timing;  // what its op time is, in words ("eager replay op_us p50", ...)
  int ranks = 0;       // 0: unknown
  std::vector<AltCurve> curves;
  std::vector<std::string> notes;
};

// The curve of `kind`, else (All-to-All and All-to-Allv standing in for each other) the other one; nullptr
// when the alternative has neither.
const AltCurve* find_curve(const AltDocument& alt, const std::string& kind);

// Adds a measured point to the curve of (kind, dtype), made where missing; a size given twice keeps the last.
void add_point(AltDocument& alt, const std::string& kind, const std::string& dtype, const AltPoint& point);

}  // namespace k25
