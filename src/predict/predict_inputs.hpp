// The documents `k25comm predict` reads, in one form each: the base (what a step costs now, per batch or
// concurrency, and which part of it is communication) and an alternative (what one op costs there, by kind
// and size).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/enum_names.hpp"

namespace k25 {

// Of a kind's communication, the part not hidden behind compute: max(0, comm - hidden). The one rule for the
// base's exposed communication and the predicted one.
double exposed_part(double comm_us, double hidden_us);

// One op of the base split at the last rank's arrival, per op (us): the ranks' wait for the last one, which a
// faster link does not shorten, and the transfer after it, which the link does.
struct BaseJoin {
  double wait_us = 0;
  double transfer_us = 0;
  std::string source;  // where the split comes from, in words
};

// One collective kind of the base's step at one batch.
struct BaseKind {
  std::string kind;    // normalized (kind_names.hpp): "allreduce", "alltoallv", "allgather", ...
  std::string name;    // what the output calls it: the kind's title, or a replay's phase ("dispatch")
  std::string dtype;   // "bf16", "fp32", ...; empty where the base does not say
  std::string launch;  // "graph" | "eager"; empty where the base does not say
  double bytes = 0;    // per op, as nccl-tests counts an op's size (common/collective_kind)
  bool size_from_config = false;  // the size is a config's (capture --model), not the trace's: said
  double ops_per_step = 0;        // ops of this kind in one step
  double comm_us = 0;             // this kind's communication in one step, p50 (the join's wait included)
  double hidden_us = 0;           // of comm_us, the part that ran beside compute (overlapped), p50
  // Where the base has the ranks on one clock (or measured its replay with and without a join): each op's
  // wait + transfer, with ops_per_step x (wait + transfer) = comm_us. None: no join information.
  std::optional<BaseJoin> join;
  double exposed_us() const { return exposed_part(comm_us, hidden_us); }
};

// One batch (or serve concurrency) of the base.
struct BaseLevel {
  int batch = 0;                   // concurrency where a TPOT is known, else the step's batch (tokens)
  double step_us = 0;              // the step as measured: TPOT where known, else the step's wall time, p50
  double step_p90_us = 0;          // the same at p90 (= p50 where the base has no distribution)
  bool step_is_tpot = false;       // step_us is a measured TPOT (serve), not a step's wall time
  std::vector<BaseKind> kinds;     // in the base's order
  std::vector<std::string> notes;  // what was read and how, at this level
  // What changes the meaning of this level's figures, said in every headline's tag ("a prefill step set
  // against decode TPOT", "AllReduce's size from the --model config, not the trace").
  std::vector<std::string> caveats;
};

struct BaseDocument {
  std::string path;
  std::string format;     // the input format's name (input_formats.hpp)
  std::string step_what;  // what a level's step is, in words ("trace decode step wall time", ...)
  int ranks = 0;          // the group size of its collectives; 0: unknown
  // The decode shape its step was measured with, as shape_key (plan/decode_gaps.hpp) writes it: a replay's
  // decode mode, or what `--gaps-from` makes of a capture; empty where it has none.
  std::string shape;
  std::vector<BaseLevel> levels;
  std::vector<std::string> notes;
  // What changes the meaning of every level's figures, said in every headline's tag: the base's own
  // headline tags ("host transport", "oversubscribed: 8 ranks on 2 cores", "emulated ranks", "one rank:
  // nothing crosses a link").
  std::vector<std::string> caveats;
};

// How an alternative's transfer lies against the ranks' wait: additive (a ring or tree: it cannot start
// before the last rank arrives, so each op is the wait + its transfer), overlapping (a one-shot push: it
// starts at each rank's arrival, so the transfer runs during the wait), or not said.
enum class AltOverlap { unknown, additive, overlapping };
template <>
struct EnumNames<AltOverlap> {
  static constexpr std::array<std::pair<AltOverlap, std::string_view>, 3> values{
      {{AltOverlap::unknown, "unknown"},
       {AltOverlap::additive, "additive"},
       {AltOverlap::overlapping, "overlapping"}}};
};

// One measured size of an alternative's curve.
struct AltPoint {
  double bytes = 0;
  double op_us = 0;                 // p50 per op (or the only figure given)
  std::optional<double> op_p90_us;  // where the input has it
};

struct AltCurve {
  std::string kind;              // normalized
  std::string name;              // a replay's phase ("dispatch", "combine"); empty for the other inputs
  std::string dtype;             // empty where not said
  std::vector<AltPoint> points;  // sorted by bytes, one per size
  AltOverlap overlap = AltOverlap::unknown;
};

struct AltDocument {
  std::string path;
  std::string format;  // the input format's name (input_formats.hpp)
  std::string label;   // the name it goes by in the output ("nvlink-node")
  std::string timing;  // what its op time is, in words ("eager replay op_us p50", ...)
  int ranks = 0;       // 0: unknown
  int hosts = 0;       // hosts its ranks ran on; 0: unknown
  std::string launch;  // "graph" | "eager"; empty where not said
  std::vector<AltCurve> curves;
  // A replay's decode mode: each kind's communication per op with the ranks' gaps and skew of `shape`
  // (points: bytes per op -> decode comm_us / ops per step); empty without a decode mode.
  std::vector<AltCurve> shaped;
  std::string shape;  // as BaseDocument::shape
  std::vector<std::string> notes;
  std::vector<std::string> mismatches;  // what differs from what the base ran, said by the reader
};

// The curve in `curves` that stands for `wanted`: of its kind (All-to-All and All-to-Allv standing in for
// each other), then of its name (a replay's phase), then of its dtype; one of several dtypes only where it is
// the base's. nullptr when none fits, with the reason in `why_not` (empty when the kind is missing).
const AltCurve* find_curve(const std::vector<AltCurve>& curves, const BaseKind& wanted, std::string& why_not);

// The fastest op and link figures any collective can show: no op between ranks completes in less (a cache
// line's round trip between two cores is about 0.1 us), and no link moves more bytes per second (NVLink 5
// moves 1,800 GB/s per GPU).
inline constexpr double kFastestOpUs = 0.1;
inline constexpr double kFastestGbps = 10000;

// Throws UsageError naming the alternative's file where one of its points is faster than kFastestOpUs or
// kFastestGbps (bytes / op time): what no link can do, most often times in ms written under op_us.
void check_plausible(const AltDocument& alt);

// Adds a measured point to the curve of (kind, name, dtype) in `curves`, made where missing; a size given
// twice keeps the last.
void add_point(std::vector<AltCurve>& curves, const AltCurve& key, const AltPoint& point);

}  // namespace k25
