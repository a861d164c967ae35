// The capture document (capture.json): what the Inspector files and the collectives of profiler traces hold
// per communicator, the decode step found in them, per-size statistics, a trace's timeline figures
// (capture_trace_document.hpp), and the comparison with a replay and a serve run. `k25comm capture` fills it
// and writes it (to_json); every reader of capture.json (predict's base, --gaps-from, doctor --capture) reads
// it back through read_capture_document, never by member names of its own. It sits in analysis/, not beside
// the capture stage that writes it, because its readers are analysis (--gaps-from), predict and doctor, which
// may not include capture/ (docs/development.md, "Stages").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/capture_input_file.hpp"
#include "analysis/capture_trace_document.hpp"
#include "analysis/run_report.hpp"
#include "common/stats.hpp"

namespace k25 {

// 2: profiler traces (trace). 3: written and read by one document module (capture_document.cpp): every member
// is written, captured_reason always; a version-3 document lacking a member is refused, an older one read
// with the members it lacks at their defaults.
inline constexpr int kCaptureSchemaVersion = 3;
inline constexpr int kOldestReadableCaptureSchemaVersion = 1;

// The model given with --model, as far as the capture needs it.
struct CaptureModel {
  std::string name;
  int hidden_size = 0;
  int activation_bytes = 2;      // bf16
  int allreduces_per_step = 0;   // num_layers x allreduces_per_layer (+ 1 with embedding_allreduce)
  std::string allreduces_rule;   // how that count was made, for messages
  std::vector<int> graph_sizes;  // CUDA-graph capture sizes: a graph-replayed step is padded to them
  std::uint64_t bytes_per_token() const {
    return static_cast<std::uint64_t>(hidden_size) * static_cast<std::uint64_t>(activation_bytes);
  }
};

// Collectives of one (kind, bytes, phase): phase "decode", "prefill" or "unknown" (the step holding the op),
// or "outside_steps". Times are the Inspector's coll_exec_time_us, each op's the max over its ranks.
struct SizeGroup {
  std::string kind;
  std::uint64_t bytes = 0;
  std::optional<int> tokens;  // AllReduce with --model: bytes / (hidden x activation bytes)
  std::string phase;
  std::string mode;          // a trace's launch: "graph" | "eager"; "" where not known (the Inspector's)
  std::string bytes_source;  // "trace" (recorded), "model" (--model and the step's batch) or "unknown"
  std::uint64_t count = 0;
  Stats exec_us;
  std::optional<Stats> busbw_gbps;  // the slowest rank's figure; absent when all were "nan"
  std::uint64_t partial = 0;        // ops some rank has no record of
  int slowest_rank = 0;             // the rank that was slowest most often
  double slowest_rank_share = 0;    // of this group's ops
};

// Detected steps of one size and phase.
struct StepSizeGroup {
  std::uint64_t bytes = 0;
  std::optional<int> tokens;
  std::string phase;
  std::uint64_t steps = 0;
  std::uint64_t partial_steps = 0;
  Stats comm_us;          // per step: sum of its ops' times
  int size_kind_ops = 0;  // ops of the step's size kind (e.g. its AllReduces) per step
  Stats size_kind_us;     // per step: sum of those ops' times
};

// One kind's part of a decode step.
struct KindShare {
  std::string kind;
  int ops_per_step = 0;
  Stats us_per_step;
  double share = 0;  // of all decode steps' communication time
};

struct StepSummary {
  bool found = false;
  std::string method;  // "anchor" | "model_allreduces_per_step"
  std::string reason;  // why none was found
  std::string anchor;  // the once-per-step kind that closes a step
  std::string pattern_text;
  std::vector<std::pair<std::string, int>> pattern;  // (kind, count) runs in order
  int ops_per_step = 0;
  std::string size_kind;  // the kind whose size is the step's size
  std::optional<std::uint64_t> bytes_per_token;
  std::optional<int> model_allreduces_per_step;
  std::string model_rule;
  std::optional<bool> matches_model;  // the step's AllReduces == the model's
  std::uint64_t decode_steps = 0, prefill_steps = 0, partial_steps = 0;
  // Of decode_steps, those a trace gave without a phase (training ProfilerSteps, steps the timeline cut):
  // where they are all of them, the words say "steps", never "decode".
  std::uint64_t phase_unknown_steps = 0;
  std::uint64_t incomplete_segments = 0, other_segments = 0, ops_outside_steps = 0;
  std::vector<std::pair<std::string, std::uint64_t>> other_shapes;
  std::uint64_t prefill_above_bytes = 0;
  std::string prefill_rule;
  std::optional<Stats> decode_comm_us, prefill_comm_us;
  std::vector<StepSizeGroup> by_size;
  std::vector<KindShare> composition;  // over decode steps
};

struct P2pGroup {
  std::string kind;  // "Send" | "Recv" | ...
  std::uint64_t records = 0;
  std::uint64_t total_bytes = 0;
  Stats bytes;
  Stats exec_us;
  std::optional<Stats> busbw_gbps;
  int ranks = 0;  // ranks with such records
  int peers = 0;  // distinct peers
};

// Whether the records hold every op: sequence numbers between each kind's first and last, against those seen.
struct SamplingSummary {
  std::uint64_t expected_ops = 0, recorded_ops = 0, missing_ops = 0;
  double coverage = 1;              // recorded / expected
  double consecutive_fraction = 1;  // recorded ops whose successor of the same kind is recorded too
  std::uint64_t coll_dropped_reported = 0, p2p_dropped_reported = 0;  // dump_stats
  std::string verdict;  // "complete" | "drops" | "sampled" | "gaps"
  std::string explanation;
};

struct CommunicatorResult {
  std::string id, name;
  int n_ranks = 0;
  std::uint64_t nnodes = 0;
  std::vector<int> ranks;
  int missing_rank_count = 0;
  std::vector<int> missing_ranks;  // the first 64
  std::map<int, std::string> rank_host;
  std::vector<std::string> conflicts;
  std::vector<std::string> format_versions;
  std::map<std::string, std::uint64_t> timing_sources;
  std::uint64_t coll_records = 0, p2p_records = 0, duplicate_records = 0, dump_markers = 0;
  std::uint64_t joined_ops = 0, partial_ops = 0, size_mismatches = 0, ops_not_in_sequence = 0;
  int reference_rank = -1;
  std::string sequence_order;  // "verbose_timestamps" | "file_order"
  SamplingSummary sampling;
  StepSummary step;
  std::vector<SizeGroup> by_size;
  std::vector<P2pGroup> p2p;
};

// One joined collective in sequence order (capture-ops.csv and the plots; not in capture.json).
struct TimelineRow {
  std::uint64_t position = 0;
  std::uint16_t kind = 0;
  std::uint64_t sn = 0, bytes = 0;
  double exec_us = 0;
  std::uint64_t start_ts = 0;
  int slowest_rank = 0, ranks_present = 0;
  std::int64_t step = -1;  // index of its detected step, -1 outside steps
  char phase = '-';        // 'd' decode, 'p' prefill, 'u' a step of unknown phase, '-' outside steps
};

// A TimelineRow phase in words, as capture.json and the CSV give it: "decode", "prefill", "unknown" (a
// trace's step without a phase: training steps, steps the timeline cut) or "outside_steps".
inline const char* op_phase_name(char phase) {
  return phase == 'd' ? "decode" : phase == 'p' ? "prefill" : phase == 'u' ? "unknown" : "outside_steps";
}

// --replay: a captured (kind, bytes) next to the replay's per-op time at the same size, per timing mode.
struct ReplayMatch {
  std::string mode;
  int tokens = 0;
  double op_us_p50 = 0;
  double ratio = 0;  // captured p50 / replay p50
};
struct ReplayOpRow {
  std::string comm, kind, phase;
  std::string
      mode;  // a trace's launch mode ("graph" | "eager"): only the replay's results of that mode match
  std::uint64_t bytes = 0;
  std::optional<int> tokens;
  std::uint64_t count = 0;
  double captured_us_p50 = 0;
  std::vector<ReplayMatch> replay;  // empty: the replay did not measure this size
};
struct ReplayStepMatch {
  std::string mode;
  int ops_per_step = 0;
  double step_us_p50 = 0;
  double per_op_ratio = 0;  // (captured AllReduce us / its ops) / (replay step us / its ops)
};
struct ReplayStepRow {
  std::string comm;
  int tokens = 0;
  std::uint64_t steps = 0;
  int allreduces_per_step = 0;
  double captured_allreduce_us_p50 = 0;  // the AllReduces of one captured decode step
  double captured_step_us_p50 = 0;       // all its collectives
  std::vector<ReplayStepMatch> replay;
};
// A trace's decode step at one batch: its communication share next to the replay's attribution at T = batch.
struct ReplayShareMatch {
  int concurrency = 0;
  double tpot_ms = 0;
  std::string key;  // the replay's CommShare key: "allreduce_eager", "allreduce_graph", ...
  double comm_ms = 0, share = 0;
};
struct ReplayShareRow {
  int batch = 0;
  std::uint64_t steps = 0;
  double trace_wall_ms = 0, trace_comm_ms = 0;  // p50 over the trace's steps (all ranks)
  double trace_share = 0, trace_exposed_share = 0;
  std::vector<ReplayShareMatch> replay;  // empty: the replay's attribution has no row at these tokens
};
struct ReplayComparison {
  std::string path;
  int ranks = 0;
  std::string transport, model;
  std::vector<ReplayOpRow> ops;
  std::vector<ReplayStepRow> steps;
  std::vector<ReplayShareRow> shares;
  std::vector<std::string> notes;
};

// --serve / --tpot: captured communication of one decode step as a share of TPOT, next to the replay's.
struct LiveAttributionReplay {
  std::string mode;
  double comm_ms = 0, share = 0;
};
struct LiveAttributionRow {
  std::optional<int> concurrency;  // from the serve report; absent for --tpot
  double tpot_ms = 0;
  std::string tpot_source;    // "serve p50" | "--tpot"
  std::optional<int> tokens;  // decode steps of this many tokens (concurrency); absent: all decode steps
  std::uint64_t captured_steps = 0;
  std::optional<double> captured_comm_ms, captured_share;
  std::string captured_reason;  // why there is no captured figure
  std::vector<LiveAttributionReplay> replay;
  // From a trace: its decode steps at batch = concurrency (all ranks): wall time and communication, p50.
  std::optional<double> trace_step_ms, trace_comm_ms, trace_share;
  std::uint64_t trace_steps = 0;
};

struct EmitConfigStatus {
  bool requested = false, written = false;
  std::string path, reason;
};

struct CaptureResult {
  int schema_version = kCaptureSchemaVersion;
  ToolInfo tool;
  std::string created_at, command_line;
  std::vector<InputFile> inputs;
  std::optional<CaptureModel> model;
  std::string model_config;
  double prefill_factor = 0;  // the rules' (CaptureRules)
  std::optional<int> prefill_tokens;
  std::vector<std::string> notes;
  std::vector<std::string> kinds;  // the collective kinds the records name (not in capture.json)
  std::vector<CommunicatorResult> communicators;
  std::vector<std::vector<TimelineRow>> timelines;  // per communicator (capture-ops.csv, not in capture.json)
  std::optional<ReplayComparison> replay;
  std::vector<LiveAttributionRow> attribution;
  EmitConfigStatus emit_config;
  TraceResult trace;  // present where profiler traces were read
};

void to_json(nlohmann::json& j, const CaptureResult& r);
// Reads every member to_json writes (document_members.hpp): absent members are an error in a document of this
// version, defaults in an older one; throws std::invalid_argument naming where.
void from_json(const nlohmann::json& j, CaptureResult& r);

// Whether `doc` is a capture.json: an object with "capture" and "communicators".
bool looks_like_capture_json(const nlohmann::json& doc);

// `doc` read as capture.json (from_json), its schema_version checked; throws UsageError "PATH: capture.json
// ..." naming the member at fault, or a version newer than this build reads.
CaptureResult read_capture_document(const nlohmann::json& doc, const std::string& path);

}  // namespace k25
