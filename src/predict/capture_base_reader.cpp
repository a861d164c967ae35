// capture.json's trace step groups as predict's base.
#include "predict/capture_base_reader.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "analysis/gaps_from_capture.hpp"
#include "common/error.hpp"
#include "plan/decode_gaps.hpp"
#include "predict/kind_names.hpp"

namespace k25 {
namespace {

using nlohmann::json;

// A STATS member's percentile ("p50"), 0 where absent or null.
double stat(const json& object, const char* key, const char* percentile = "p50") {
  if (!object.contains(key) || !object[key].is_object()) return 0;
  const json& stats = object[key];
  return stats.contains(percentile) && stats[percentile].is_number() ? stats[percentile].get<double>() : 0;
}

double number_or(const json& object, const char* key, double fallback) {
  return object.contains(key) && object[key].is_number() ? object[key].get<double>() : fallback;
}

std::string text_or_empty(const json& object, const char* key) {
  return object.contains(key) && object[key].is_string() ? object[key].get<std::string>() : "";
}

// A group's batch: its batch, else its tokens; 0 where it has neither (steps of unknown batch).
int group_batch(const json& g) {
  return static_cast<int>(std::clamp(number_or(g, "batch", number_or(g, "tokens", 0)), 0.0, 1e6));
}

// The join group of (phase, batch, kind) in trace.join; nullptr where the join has none.
const json* join_group(const json& trace, const std::string& phase, int batch, const std::string& kind) {
  if (!trace.contains("join") || !trace["join"].is_object() || !trace["join"].contains("groups") ||
      !trace["join"]["groups"].is_array())
    return nullptr;
  for (const json& g : trace["join"]["groups"])
    if (g.is_object() && text_or_empty(g, "phase") == phase && group_batch(g) == batch &&
        normalized_kind(text_or_empty(g, "kind")) == kind)
      return &g;
  return nullptr;
}

// The group size of the trace's collectives: the largest world size the ranks' files say, else the ranks
// read.
int group_size(const json& trace) {
  if (!trace.contains("ranks") || !trace["ranks"].is_array()) return 0;
  double world = 0;
  for (const json& r : trace["ranks"])
    if (r.is_object()) world = std::max(world, number_or(r, "world_size", 0));
  return world >= 1 && world <= 1e6 ? static_cast<int>(world) : static_cast<int>(trace["ranks"].size());
}

// Each op of a kind split at the last rank's arrival: the transfer as the join measured it (p50 over the
// collectives), the wait the rest of the kind's communication per op, so that ops x (wait + transfer) is the
// base's own communication.
std::optional<BaseJoin> op_split(const json* join, const BaseKind& kind) {
  if (join == nullptr || !join->contains("transfer_us") || kind.ops_per_step <= 0) return std::nullopt;
  BaseJoin split;
  split.transfer_us = std::min(stat(*join, "transfer_us"), kind.comm_us / kind.ops_per_step);
  split.wait_us = kind.comm_us / kind.ops_per_step - split.transfer_us;
  split.source = fmt::format(
      "the trace's ranks on one clock: transfer after the last rank's start {:.2f} us per op (p50 of {} collectives), the wait the rest of the op; the ranks' mean wait measured {:.2f} us",
      split.transfer_us, number_or(*join, "collectives", 0), stat(*join, "wait_us"));
  return split;
}

BaseKind group_kind(const json& k, const json& trace, const std::string& phase, int batch, int ranks,
                    double overlapped_fraction) {
  BaseKind kind;
  kind.kind = normalized_kind(text_or_empty(k, "kind"));
  kind.name = kind_title(kind.kind);
  kind.dtype = normalized_dtype(text_or_empty(k, "dtype"));
  kind.launch = text_or_empty(k, "launch");
  kind.bytes = nccl_tests_size(kind.kind, number_or(k, "bytes", 0), ranks);
  kind.ops_per_step = number_or(k, "ops_per_step", 0);
  kind.comm_us = stat(k, "merged_us");
  kind.hidden_us = kind.comm_us * overlapped_fraction;
  kind.join = op_split(join_group(trace, phase, batch, kind.kind), kind);
  return kind;
}

// TPOT p50 of the capture's attribution at `batch` (its concurrency or tokens), in us; 0 where none.
double attributed_tpot_us(const json& doc, int batch) {
  if (!doc.contains("attribution") || !doc["attribution"].is_array()) return 0;
  for (const json& row : doc["attribution"])
    if (number_or(row, "concurrency", -1) == batch || number_or(row, "tokens", -1) == batch)
      return number_or(row, "tpot_ms", 0) * 1000;
  return 0;
}

BaseLevel group_level(const json& doc, const json& g, int ranks) {
  const json& trace = doc["trace"];
  const std::string phase = text_or_empty(g, "phase");
  BaseLevel level;
  level.batch = group_batch(g);
  level.step_us = stat(g, "wall_us");
  level.step_p90_us = stat(g, "wall_us", "p90");
  const double merged = stat(g, "comm_merged_us");
  const double overlapped_fraction =
      merged > 0 ? std::clamp(stat(g, "comm_overlapped_us") / merged, 0.0, 1.0) : 0;
  if (g.contains("kinds") && g["kinds"].is_array())
    for (const json& k : g["kinds"])
      if (k.is_object())
        level.kinds.push_back(group_kind(k, trace, phase, level.batch, ranks, overlapped_fraction));
  if (const double tpot_us = attributed_tpot_us(doc, level.batch); tpot_us > 0 && level.batch > 0) {
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
std::vector<const json*> level_groups(const json& trace, std::string& phase) {
  for (const char* wanted : {"decode", "unknown", "prefill"}) {
    std::vector<const json*> groups;
    for (const json& g : trace["groups"])
      if (g.is_object() && text_or_empty(g, "phase") == wanted &&
          (!g.contains("rank") || g["rank"].is_null()))
        groups.push_back(&g);
    if (!groups.empty()) {
      phase = wanted;
      return groups;
    }
  }
  return {};
}

}  // namespace

BaseDocument base_from_capture(const json& doc, const std::string& path) {
  BaseDocument base;
  base.path = path;
  base.format = "capture.json";
  const bool traced = doc.contains("trace") && doc["trace"].is_object() && doc["trace"].contains("groups") &&
                      doc["trace"]["groups"].is_array();
  if (!traced)
    throw UsageError(
        path +
        ": a capture without a trace step (capture.json 'trace' is null: NCCL Inspector logs alone): predict needs a step's wall time and its communication by kind, from profiler traces");
  const json& trace = doc["trace"];
  base.ranks = group_size(trace);
  std::string phase;
  for (const json* g : level_groups(trace, phase)) base.levels.push_back(group_level(doc, *g, base.ranks));
  if (base.levels.empty())
    throw UsageError(path + ": a capture whose trace has no step group: nothing to predict from");
  base.step_what = phase == "decode"
                       ? "the trace's decode step wall time p50 (TPOT where the capture has serve figures)"
                       : fmt::format("the trace's step wall time p50 ({} steps)", phase);
  if (phase == "prefill")
    base.notes.push_back("the trace holds prefill steps only: the prediction is of a prefill step");
  if (phase == "unknown")
    base.notes.push_back("the trace's steps have no phase mark: each level is their step");
  if (trace.contains("join") && trace["join"].is_object() && !text_or_empty(trace["join"], "reason").empty())
    base.notes.push_back("trace join: " + text_or_empty(trace["join"], "reason") +
                         ": no wait can be told from the transfer, so the prediction is back-to-back");
  const bool old_join = std::any_of(base.levels.begin(), base.levels.end(), [&](const BaseLevel& l) {
    return std::any_of(l.kinds.begin(), l.kinds.end(), [&](const BaseKind& k) {
      const json* j = join_group(trace, phase, l.batch, k.kind);
      return j != nullptr && !j->contains("transfer_us");
    });
  });
  if (old_join)
    base.notes.push_back(
        "the capture's join has start spreads but no transfer_us (an older k25comm capture): run k25comm capture on the traces again to split each op into wait and transfer");
  try {
    DecodeGapSpec spec;
    spec.captured = shapes_from_capture(doc, path);
    base.shape = shape_key(spec);
  } catch (const UsageError&) {
    // No shape to replay: no alternative can have run it.
  }
  return base;
}

}  // namespace k25
