// capture.json's trace decode steps as predict's base.
#include "predict/capture_base_reader.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.hpp"
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

// The start spread p50 of (decode, batch, kind) in trace.join; empty where the join has no such group.
std::optional<double> join_spread(const json& trace, int batch, const std::string& kind) {
  if (!trace.contains("join") || !trace["join"].is_object() || !trace["join"].contains("groups"))
    return std::nullopt;
  for (const json& g : trace["join"]["groups"])
    if (text_or_empty(g, "phase") == "decode" && number_or(g, "batch", -1) == batch &&
        normalized_kind(text_or_empty(g, "kind")) == kind)
      return stat(g, "start_spread_us");
  return std::nullopt;
}

BaseKind group_kind(const json& k, const json& trace, int batch, double overlapped_fraction) {
  BaseKind kind;
  kind.kind = normalized_kind(text_or_empty(k, "kind"));
  kind.dtype = normalized_dtype(text_or_empty(k, "dtype"));
  kind.bytes = number_or(k, "bytes", 0);
  kind.ops_per_step = number_or(k, "ops_per_step", 0);
  kind.comm_us = stat(k, "merged_us");
  kind.hidden_us = kind.comm_us * overlapped_fraction;
  if (const std::optional<double> spread = join_spread(trace, batch, kind.kind)) {
    kind.wait_us = std::min(*spread, stat(k, "op_us"));
    kind.wait_source = "the trace's join across ranks: start spread p50 (at most the op's time)";
  }
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

BaseLevel group_level(const json& doc, const json& g, int batch) {
  const json& trace = doc["trace"];
  BaseLevel level;
  level.batch = batch;
  level.step_us = stat(g, "wall_us");
  level.step_p90_us = stat(g, "wall_us", "p90");
  const double merged = stat(g, "comm_merged_us");
  const double overlapped_fraction =
      merged > 0 ? std::clamp(stat(g, "comm_overlapped_us") / merged, 0.0, 1.0) : 0;
  if (g.contains("kinds") && g["kinds"].is_array())
    for (const json& k : g["kinds"]) level.kinds.push_back(group_kind(k, trace, batch, overlapped_fraction));
  if (const double tpot_us = attributed_tpot_us(doc, batch); tpot_us > 0) {
    level.notes.push_back(fmt::format(
        "step = TPOT {:.3f} ms of the capture's serve figures (the trace's step wall time p50: {:.1f} us)",
        tpot_us / 1000, level.step_us));
    level.step_p90_us = tpot_us + (level.step_p90_us - level.step_us);
    level.step_us = tpot_us;
    level.step_is_tpot = true;
  }
  return level;
}

int trace_ranks(const json& trace) {
  return trace.contains("ranks") && trace["ranks"].is_array() ? static_cast<int>(trace["ranks"].size()) : 0;
}

}  // namespace

bool looks_like_capture_json(const json& doc) {
  return doc.is_object() && doc.contains("capture") && doc.contains("communicators");
}

BaseDocument base_from_capture(const json& doc, const std::string& path) {
  BaseDocument base;
  base.path = path;
  base.format = "capture.json";
  base.step_what = "the trace's decode step wall time p50 (TPOT where the capture has serve figures)";
  const bool traced = doc.contains("trace") && doc["trace"].is_object() && doc["trace"].contains("groups");
  if (!traced)
    throw UsageError(
        path +
        ": a capture without a trace decode step (capture.json 'trace' is null): predict needs a step's wall time and its communication by kind");
  const json& trace = doc["trace"];
  base.ranks = trace_ranks(trace);
  for (const json& g : trace["groups"]) {
    if (text_or_empty(g, "phase") != "decode" || (g.contains("rank") && !g["rank"].is_null())) continue;
    const double batch = number_or(g, "batch", number_or(g, "tokens", -1));
    if (batch < 0) continue;
    base.levels.push_back(group_level(doc, g, static_cast<int>(batch)));
  }
  if (base.levels.empty())
    throw UsageError(path + ": a capture whose trace has no decode step group: nothing to predict from");
  if (trace.contains("join") && trace["join"].is_object() && !text_or_empty(trace["join"], "reason").empty())
    base.notes.push_back("trace join: " + text_or_empty(trace["join"], "reason"));
  return base;
}

}  // namespace k25
