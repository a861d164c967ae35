// The decode mode's shape from a capture.json's step groups and join.
#include "analysis/gaps_from_capture.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "common/enum_names.hpp"
#include "common/error.hpp"

namespace k25 {
namespace {

// The batch of a step group (its batch, else its tokens); 0 where it has neither.
int batch_of(const TraceStepGroup& group) {
  return std::clamp(group.batch.value_or(group.tokens.value_or(0)), 0, 1 << 20);
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
std::vector<const TraceStepGroup*> step_groups(const TraceResult& trace) {
  std::vector<const TraceStepGroup*> decode, unknown;
  for (const TraceStepGroup& g : trace.groups) {
    if (g.rank) continue;
    if (g.phase == "decode") decode.push_back(&g);
    if (g.phase == "unknown") unknown.push_back(&g);
  }
  return decode.empty() ? unknown : decode;
}

std::optional<CapturedShape> join_shape(const JoinCostGroup& join, const TraceStepGroup& step,
                                        CollectiveKind kind) {
  if (join.arrivals.size() < 2) return std::nullopt;
  CapturedShape shape;
  shape.kind = kind;
  shape.batch = batch_of(step);
  double mean_arrival = 0;
  for (const RankArrival& a : join.arrivals) {
    shape.rank_arrival_us.push_back(a.arrival_us);
    mean_arrival += a.arrival_us.p50;
  }
  mean_arrival /= static_cast<double>(shape.rank_arrival_us.size());
  double ops = 0;
  for (const TraceKindShare& k : step.kinds) ops += k.ops_per_step;
  if (ops <= 0) return std::nullopt;
  const double compute = step.wall_us.p50 - step.comm_merged_us.p50;
  shape.gap_us = std::max(0.0, compute / ops - mean_arrival);
  return shape;
}

}  // namespace

std::vector<CapturedShape> shapes_from_capture(const CaptureResult& capture, const std::string& path) {
  if (!capture.trace.present)
    throw UsageError(
        path +
        ": a capture without a trace (capture.json 'trace' is null): its step's shape needs the profiler traces of two or more ranks");
  const TraceResult& trace = capture.trace;
  if (trace.join.empty())
    throw UsageError(fmt::format(
        "{}: a capture without a join across ranks ({}): its step's shape needs the traces of two or more ranks on one clock",
        path, trace.join_reason.empty() ? "none" : trace.join_reason));
  std::vector<CapturedShape> shapes;
  bool any_arrivals = false;
  for (const TraceStepGroup* g : step_groups(trace))
    for (const JoinCostGroup& j : trace.join) {
      if (j.phase != g->phase || std::clamp(j.batch.value_or(0), 0, 1 << 20) != batch_of(*g)) continue;
      any_arrivals |= !j.arrivals.empty();
      const std::optional<CollectiveKind> kind = replay_kind(j.kind);
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

std::vector<CapturedShape> shapes_from_capture(const nlohmann::json& doc, const std::string& path) {
  return shapes_from_capture(read_capture_document(doc, path), path);
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
