// capture.json's trace step groups as predict's base.
#include "predict/capture_base_reader.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "analysis/capture_document.hpp"
#include "analysis/gaps_from_capture.hpp"
#include "common/error.hpp"
#include "plan/decode_gaps.hpp"
#include "predict/capture_base_caveats.hpp"
#include "predict/kind_names.hpp"

namespace k25 {
namespace {

// A group's batch: its batch, else its tokens; 0 where it has neither (steps of unknown batch).
int group_batch(const TraceStepGroup& g) {
  return std::clamp(g.batch.value_or(g.tokens.value_or(0)), 0, 1000000);
}

// The join group of (phase, batch, kind) in the trace's join; nullptr where the join has none.
const JoinCostGroup* join_group(const TraceResult& trace, const std::string& phase, int batch,
                                const std::string& kind) {
  for (const JoinCostGroup& g : trace.join)
    if (g.phase == phase && std::clamp(g.batch.value_or(0), 0, 1000000) == batch &&
        normalized_kind(g.kind) == kind)
      return &g;
  return nullptr;
}

// The group size of the trace's collectives: the largest world size the ranks' files say, else the ranks
// read.
int group_size(const TraceResult& trace) {
  int world = 0;
  for (const TraceRankResult& r : trace.ranks) world = std::max(world, r.world_size);
  return world >= 1 && world <= 1000000 ? world : static_cast<int>(trace.ranks.size());
}

// Each op of a kind split at the last rank's arrival: the transfer as the join measured it (p50 over the
// collectives), the wait the rest of the kind's communication per op, so that ops x (wait + transfer) is the
// base's own communication.
std::optional<BaseJoin> op_split(const JoinCostGroup* join, const BaseKind& kind) {
  if (join == nullptr || !join->transfer_us || kind.ops_per_step <= 0) return std::nullopt;
  BaseJoin split;
  split.transfer_us = std::min(join->transfer_us->p50, kind.comm_us / kind.ops_per_step);
  split.wait_us = kind.comm_us / kind.ops_per_step - split.transfer_us;
  split.source = fmt::format(
      "the trace's ranks on one clock: transfer after the last rank's start {:.2f} us per op (p50 of {} collectives), the wait the rest of the op; the ranks' mean wait measured {:.2f} us",
      split.transfer_us, join->collectives, join->wait_us ? join->wait_us->p50 : 0.0);
  return split;
}

BaseKind group_kind(const TraceKindShare& k, const TraceResult& trace, const std::string& phase, int batch,
                    int ranks, double overlapped_fraction) {
  BaseKind kind;
  kind.kind = normalized_kind(k.kind);
  kind.name = kind_title(kind.kind);
  kind.dtype = normalized_dtype(k.dtype);
  kind.launch = k.launch;
  kind.bytes = nccl_tests_size(kind.kind, static_cast<double>(k.bytes), ranks);
  kind.ops_per_step = k.ops_per_step;
  kind.comm_us = k.merged_us.p50;
  kind.hidden_us = kind.comm_us * overlapped_fraction;
  kind.join = op_split(join_group(trace, phase, batch, kind.kind), kind);
  return kind;
}

// TPOT p50 of the capture's attribution at `batch` (its concurrency or tokens), in us; 0 where none.
double attributed_tpot_us(const CaptureResult& capture, int batch) {
  for (const LiveAttributionRow& row : capture.attribution)
    if (row.concurrency == batch || row.tokens == batch) return row.tpot_ms * 1000;
  return 0;
}

BaseLevel group_level(const CaptureResult& capture, const TraceStepGroup& g, int ranks) {
  BaseLevel level;
  level.batch = group_batch(g);
  level.step_us = g.wall_us.p50;
  level.step_p90_us = g.wall_us.p90;
  const double merged = g.comm_merged_us.p50;
  const double overlapped_fraction = merged > 0 ? std::clamp(g.comm_overlapped_us.p50 / merged, 0.0, 1.0) : 0;
  for (const TraceKindShare& k : g.kinds)
    level.kinds.push_back(group_kind(k, capture.trace, g.phase, level.batch, ranks, overlapped_fraction));
  if (const double tpot_us = attributed_tpot_us(capture, level.batch); tpot_us > 0 && level.batch > 0) {
    level.notes.push_back(fmt::format(
        "step = TPOT {:.3f} ms of the capture's serve figures (the trace's step wall time p50: {:.1f} us)",
        tpot_us / 1000, level.step_us));
    level.step_p90_us = tpot_us + (level.step_p90_us - level.step_us);
    level.step_us = tpot_us;
    level.step_is_tpot = true;
  }
  return level;
}

// The step groups over all ranks that the levels come from, and the phase they are of.
std::vector<const TraceStepGroup*> level_groups(const TraceResult& trace, std::string& phase) {
  for (const char* wanted : {"decode", "unknown", "prefill"}) {
    std::vector<const TraceStepGroup*> groups;
    for (const TraceStepGroup& g : trace.groups)
      if (g.phase == wanted && !g.rank) groups.push_back(&g);
    if (!groups.empty()) {
      phase = wanted;
      return groups;
    }
  }
  return {};
}

}  // namespace

BaseDocument base_from_capture(const nlohmann::json& doc, const std::string& path) {
  const CaptureResult capture = read_capture_document(doc, path);
  BaseDocument base;
  base.path = path;
  base.format = "capture.json";
  if (!capture.trace.present)
    throw UsageError(
        path +
        ": a capture without a trace step (capture.json 'trace' is null: NCCL Inspector logs alone): predict needs a step's wall time and its communication by kind, from profiler traces");
  const TraceResult& trace = capture.trace;
  base.ranks = group_size(trace);
  std::string phase;
  for (const TraceStepGroup* g : level_groups(trace, phase))
    base.levels.push_back(group_level(capture, *g, base.ranks));
  if (base.levels.empty())
    throw UsageError(path + ": a capture whose trace has no step group: nothing to predict from");
  base.step_what = phase == "decode"
                       ? "the trace's decode step wall time p50 (TPOT where the capture has serve figures)"
                       : fmt::format("the trace's step wall time p50 ({} steps)", phase);
  if (phase == "prefill")
    base.notes.push_back("the trace holds prefill steps only: the prediction is of a prefill step");
  if (phase == "unknown")
    base.notes.push_back("the trace's steps have no phase mark: each level is their step");
  if (!trace.join_reason.empty())
    base.notes.push_back("trace join: " + trace.join_reason +
                         ": no wait can be told from the transfer, so the prediction is back-to-back");
  const bool old_join = std::any_of(base.levels.begin(), base.levels.end(), [&](const BaseLevel& l) {
    return std::any_of(l.kinds.begin(), l.kinds.end(), [&](const BaseKind& k) {
      const JoinCostGroup* j = join_group(trace, phase, l.batch, k.kind);
      return j != nullptr && !j->transfer_us;
    });
  });
  if (old_join)
    base.notes.push_back(
        "the capture's join has start spreads but no transfer_us (an older k25comm capture): run k25comm capture on the traces again to split each op into wait and transfer");
  add_capture_caveats(trace, phase, base);
  try {
    DecodeGapSpec spec;
    spec.captured = shapes_from_capture(capture, path);
    base.shape = shape_key(spec);
  } catch (const UsageError&) {
    // No shape to replay: no alternative can have run it.
  }
  return base;
}

}  // namespace k25
