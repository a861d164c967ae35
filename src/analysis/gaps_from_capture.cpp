// The decode mode's shape from a capture.json's step groups and join.
#include "analysis/gaps_from_capture.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "common/error.hpp"

namespace k25 {
namespace {

using nlohmann::json;

double p50_of(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_object() || !it->contains("p50") || !(*it)["p50"].is_number()) return 0;
  return (*it)["p50"].get<double>();
}

std::string text_of(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// The batch of a group (its batch, else its tokens); 0 where it has neither.
int batch_of(const json& group) {
  for (const char* key : {"batch", "tokens"})
    if (const auto it = group.find(key); it != group.end() && it->is_number_integer())
      return std::clamp(it->get<int>(), 0, 1 << 20);
  return 0;
}

// The replay's kind of a capture's kind name ("AllReduce", "all_gather", "AllToAllv"); empty for kinds the
// replay does not run (SendRecv, Broadcast).
std::optional<CollectiveKind> replay_kind(const std::string& name) {
  std::string letters;
  for (const char c : name)
    if (std::isalnum(static_cast<unsigned char>(c)) != 0)
      letters.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (letters == "alltoall") return CollectiveKind::alltoallv;
  return enum_from_name<CollectiveKind>(letters);
}

// The step groups over all ranks of the phase the shapes come from: decode, else unknown (a trace without
// phase marks).
std::vector<const json*> step_groups(const json& trace) {
  std::vector<const json*> decode, unknown;
  if (!trace.contains("groups") || !trace["groups"].is_array()) return {};
  for (const json& g : trace["groups"]) {
    if (!g.is_object() || (g.contains("rank") && !g["rank"].is_null())) continue;
    const std::string phase = text_of(g, "phase");
    if (phase == "decode") decode.push_back(&g);
    if (phase == "unknown") unknown.push_back(&g);
  }
  return decode.empty() ? unknown : decode;
}

std::optional<CapturedShape> join_shape(const json& join_group, const json& step_group, CollectiveKind kind) {
  const auto arrivals = join_group.find("arrivals");
  if (arrivals == join_group.end() || !arrivals->is_array() || arrivals->size() < 2) return std::nullopt;
  CapturedShape shape;
  shape.kind = kind;
  shape.batch = batch_of(step_group);
  double mean_arrival = 0;
  for (const json& a : *arrivals) {
    if (!a.is_object() || !a.contains("arrival_us") || !a["arrival_us"].is_object()) return std::nullopt;
    const Stats stats = a["arrival_us"].get<Stats>();
    shape.rank_arrival_us.push_back(stats);
    mean_arrival += stats.p50;
  }
  mean_arrival /= static_cast<double>(shape.rank_arrival_us.size());
  double ops = 0;
  if (step_group.contains("kinds") && step_group["kinds"].is_array())
    for (const json& k : step_group["kinds"])
      if (k.is_object() && k.contains("ops_per_step") && k["ops_per_step"].is_number())
        ops += k["ops_per_step"].get<double>();
  if (ops <= 0) return std::nullopt;
  const double compute = p50_of(step_group, "wall_us") - p50_of(step_group, "comm_merged_us");
  shape.gap_us = std::max(0.0, compute / ops - mean_arrival);
  return shape;
}

}  // namespace

bool looks_like_capture_json(const json& doc) {
  return doc.is_object() && doc.contains("capture") && doc.contains("communicators");
}

std::vector<CapturedShape> shapes_from_capture(const json& doc, const std::string& path) {
  const bool traced = looks_like_capture_json(doc) && doc.contains("trace") && doc["trace"].is_object();
  if (!traced)
    throw UsageError(
        path +
        ": a capture without a trace (capture.json 'trace' is null): its step's shape needs the profiler traces of two or more ranks");
  const json& trace = doc["trace"];
  const json* join = trace.contains("join") && trace["join"].is_object() ? &trace["join"] : nullptr;
  if (join == nullptr || !join->contains("groups") || !(*join)["groups"].is_array() ||
      (*join)["groups"].empty())
    throw UsageError(fmt::format(
        "{}: a capture without a join across ranks ({}): its step's shape needs the traces of two or more ranks on one clock",
        path, join != nullptr && !text_of(*join, "reason").empty() ? text_of(*join, "reason") : "none"));
  std::vector<CapturedShape> shapes;
  bool any_arrivals = false;
  for (const json* g : step_groups(trace))
    for (const json& j : (*join)["groups"]) {
      if (!j.is_object() || text_of(j, "phase") != text_of(*g, "phase") || batch_of(j) != batch_of(*g))
        continue;
      any_arrivals |= j.contains("arrivals");
      const std::optional<CollectiveKind> kind = replay_kind(text_of(j, "kind"));
      if (!kind) continue;
      if (const std::optional<CapturedShape> shape = join_shape(j, *g, *kind)) shapes.push_back(*shape);
    }
  if (!any_arrivals)
    throw UsageError(
        path +
        ": the capture's join has no ranks' arrivals (written by an older k25comm capture): run k25comm capture on the traces again");
  if (shapes.empty())
    throw UsageError(
        path +
        ": the capture's joined steps hold no AllReduce, AllGather, ReduceScatter or All-to-All: nothing the decode mode replays");
  return shapes;
}

std::string describe_shapes(const std::vector<CapturedShape>& shapes, const std::string& path) {
  std::string parts;
  for (const CapturedShape& s : shapes)
    parts += fmt::format("{}{} at batch {}: {:.1f} us before each op, {} ranks' arrivals",
                         parts.empty() ? "" : "; ", kind_info(s.kind).title, s.batch, s.gap_us,
                         s.rank_arrival_us.size());
  return fmt::format("decode gaps and arrivals from {}: {}", path, parts);
}

}  // namespace k25
