// The trace part of the capture document (capture.json "trace"): where a step's GPU time goes, per rank, per
// step and per batch size, by kernel class and collective kind, with communication merged, overlapped with
// compute and exposed (HolisticTraceAnalysis's definitions), and the live join cost across ranks.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/kernel_class.hpp"
#include "common/document_members.hpp"
#include "common/stats.hpp"

namespace k25 {

// Communication against compute on one GPU (microseconds): merged = measure of the union of the
// communication kernels; overlapped = measure of (that union ∩ the union of the other kernels, copies and
// sets left out); exposed = merged - overlapped; overlap_percent = overlapped / merged x 100 (HTA's
// comm/compute overlap).
struct CommOverlap {
  double merged_us = 0, overlapped_us = 0, exposed_us = 0, overlap_percent = 0;
};

struct KindTime {
  std::string kind;
  std::uint64_t count = 0;
  double sum_us = 0, merged_us = 0;
};

struct ClassTime {
  std::string cls;
  std::uint64_t count = 0;
  double sum_us = 0, merged_us = 0;
};

// One rank over its whole trace.
struct TraceRankResult {
  int rank = 0;
  std::string rank_source, file;
  int device = -1, world_size = 0;
  std::uint64_t kernels = 0, copies = 0, graph_kernels = 0;
  double kernel_busy_us = 0;  // union of its kernels
  double gpu_busy_us = 0;     // union of kernels, copies and sets
  double span_us = 0;         // first start to last end of its GPU activities
  // That first start and last end on the trace's clock (ns: a Kineto trace's baseTimeNanoseconds + ts, since
  // the epoch where the trace says so); 0 without GPU activities. The live profile tells whose profiler
  // window a file is by them.
  // (Not in capture.json, nor is cut.)
  std::int64_t first_ns = 0, last_ns = 0;
  bool cut = false;  // its file ends early (a trace still being written): what was whole was read
  std::vector<KindTime> comm_kinds;
  CommOverlap comm;
  // HolisticTraceAnalysis's view: only the kernels launched (their host call) from the first ProfilerStep to
  // the start of the last one, where the trace holds two or more (absent otherwise).
  std::optional<CommOverlap> profiler_steps;
  std::vector<ClassTime> classes;
  std::uint64_t steps = 0;
};

// One step of one rank (capture-steps.csv).
struct TraceStepRow {
  int rank = 0;
  std::int64_t index = 0;    // per rank, in time order
  std::int64_t joined = -1;  // the step of the reference rank it lines up with; -1: none
  std::string phase;
  std::optional<int> batch, tokens;
  std::string mark;
  double start_us = 0;  // since the first GPU activity of the run
  double wall_us = 0, busy_us = 0, idle_us = 0;
  std::optional<double> host_us;
  std::uint64_t comm_ops = 0;
  CommOverlap comm;
  std::array<double, kKernelClasses.size()> class_merged_us{};
};

struct TraceClassShare {
  std::string cls;
  double kernels_per_step = 0;  // p50
  Stats sum_us;                 // per step: the sum of its kernels' times
  Stats merged_us;              // per step: the measure of their union
  double share = 0;             // its merged time over all steps / their wall time
};

struct TraceKindShare {
  std::string kind;
  double ops_per_step = 0;  // p50
  Stats op_us;              // each op's kernel time
  Stats sum_us;             // per step: the sum of its ops' times
  Stats merged_us;          // per step: the measure of their union
  double share = 0;
  std::uint64_t bytes = 0;   // the most frequent size (0: unknown)
  std::string bytes_source;  // "trace" | "model" | "unknown"
  std::string dtype;
  std::string launch;  // "graph" | "eager" | "unknown" | "mixed"
};

// The steps of one (phase, batch), over all ranks (rank absent) or of one rank.
struct TraceStepGroup {
  std::string phase;
  std::optional<int> batch, tokens;
  std::optional<int> rank;
  std::uint64_t steps = 0;
  Stats wall_us, busy_us, idle_us;
  std::optional<Stats> host_us;
  Stats comm_merged_us, comm_overlapped_us, comm_exposed_us;
  double comm_share = 0, exposed_share = 0;  // over all its steps' wall time
  // The communication kernels' summed time over all kernels' summed time in its steps (torch.profiler's
  // "CUDA total %"): the share of GPU busy time, against comm_share's of the wall.
  double comm_kernel_share = 0;
  std::vector<TraceClassShare> classes;
  std::vector<TraceKindShare> kinds;
};

// One rank's start behind the earliest rank's, per collective of a join group.
struct RankArrival {
  int rank = 0;
  Stats arrival_us;
};

// Per collective of a step across the ranks of the run: the spread of its start times (the last rank to
// arrive holds the others in the kernel) and which rank was last.
struct JoinCostGroup {
  std::string phase;
  std::optional<int> batch;
  std::string kind;
  std::uint64_t steps = 0, collectives = 0;
  int ranks = 0;
  Stats start_spread_us;
  // Per collective, over the ranks: the mean wait for the last rank to start (latest start - a rank's start)
  // and the mean time from that start to the ranks' ends; they add up to the ranks' mean op time.
  // Absent in a capture written before the join split each op (k25comm b7c2ec6).
  std::optional<Stats> wait_us, transfer_us;
  std::vector<RankArrival> arrivals;  // per rank, ascending
  int last_rank = 0;
  double last_rank_share = 0;
  // Every rank that was last as often as last_rank (a tie where two or more), in the order they first were;
  // each was last last_rank_count times.
  std::vector<int> last_ranks;
  std::uint64_t last_rank_count = 0;
};

// Which backend ran the collectives of one kind and size over the whole trace, all ranks (capture.json
// trace.backends): the backend the kernel-class table names for the kernel ("unknown" where it names none).
struct BackendRow {
  std::string kind;
  std::optional<std::uint64_t> bytes;  // absent where the size is unknown
  std::string backend;
  std::uint64_t count = 0;
  double op_us_p50 = 0;  // each kernel's time, p50
};

// An engine's rule that would have chosen another backend on another link, for a backend that ran.
struct BackendRuleNote {
  std::string backend;  // the backend that ran
  int ranks = 0;        // on this many ranks
  std::string rule, source;
};

struct UnclassifiedKernel {
  std::string name;
  std::uint64_t count = 0;
  double sum_us = 0;
  double share = 0;  // of all kernel time
};

struct TraceResult {
  bool present = false;
  std::vector<std::string> class_tables;
  std::string step_method;  // "engine_marks" | "comm_pattern" | "gpu_idle_gaps" | "none"
  std::string step_method_detail;
  double step_gap_us = 0;
  std::uint64_t steps = 0;
  std::uint64_t marks_without_gpu_work = 0;  // step marks that launched no GPU work: counted, not steps
  int reference_rank = -1;                   // the rank whose steps the others are lined up with
  std::vector<TraceRankResult> ranks;
  std::vector<TraceStepGroup> groups;  // every (phase, batch) over all ranks, then per rank
  std::string join_reason;             // why there is no join cost
  std::vector<JoinCostGroup> join;
  std::vector<BackendRow> backends;
  std::vector<BackendRuleNote> backend_rules;
  std::vector<UnclassifiedKernel> unclassified;
  double unclassified_share = 0;
  std::uint64_t sizes_trace = 0, sizes_model = 0, sizes_unknown = 0;  // communication kernels by size source
  std::vector<TraceStepRow> step_rows;  // capture-steps.csv, not in capture.json
  std::vector<std::string> notes;
};

// capture.json's "trace" (null where no trace was read); the step rows go to capture-steps.csv only.
void to_json(nlohmann::json& j, const TraceResult& trace);
// capture.json's "trace" read back at `place` (document_members.hpp), present set.
void read_trace_document(const nlohmann::json& in, TraceResult& trace, const ReadPlace& place);

}  // namespace k25
