// The prediction model (docs/predict.md): each kind's new exposed communication from the alternative's op at
// the base's size, the base's wait for the last rank kept or dropped, the hidden part hidden up to the
// compute it ran beside.
#include "predict/step_prediction.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/loglog_curve.hpp"
#include "predict/kind_names.hpp"

namespace k25 {
namespace {

// The alternative's op at `bytes`: p50 and p90 on its log-log curves, and where that lies.
struct AltOp {
  CurveEstimate p50, p90;
};

std::optional<AltOp> alt_op_at(const AltCurve& curve, double bytes) {
  std::vector<CurvePoint> p50, p90;
  for (const AltPoint& p : curve.points) {
    p50.push_back({p.bytes, p.op_us});
    p90.push_back({p.bytes, p.op_p90_us.value_or(p.op_us)});
  }
  const std::optional<CurveEstimate> at50 = LogLogCurve(p50).at(bytes), at90 = LogLogCurve(p90).at(bytes);
  if (!at50 || !at90) return std::nullopt;
  return AltOp{*at50, *at90};
}

KindEstimate kept_at_base(const BaseKind& k) {
  KindEstimate e;
  e.kind = k.kind;
  e.bytes = k.bytes;
  e.ops_per_step = k.ops_per_step;
  e.base_comm_us = k.comm_us;
  e.base_exposed_us = std::max(0.0, k.comm_us - k.hidden_us);
  e.hidden_us = k.hidden_us;
  e.source = "kept";
  e.new_comm_us = k.comm_us;
  e.new_exposed_us = e.new_exposed_p90_us = e.base_exposed_us;
  return e;
}

KindEstimate estimate_kind(const BaseKind& k, const AltOp& op, PredictMethod method) {
  KindEstimate e = kept_at_base(k);
  e.source = to_string(op.p50.source);
  e.alt_op_us = op.p50.value;
  e.alt_op_p90_us = std::max(op.p50.value, op.p90.value);
  const double wait = method == PredictMethod::join_aware ? k.wait_us.value_or(0) : 0;
  if (method == PredictMethod::join_aware) e.wait_us = k.wait_us;
  e.new_comm_us = k.ops_per_step * (wait + *e.alt_op_us);
  e.new_exposed_us = std::max(0.0, e.new_comm_us - k.hidden_us);
  e.new_exposed_p90_us = std::max(0.0, k.ops_per_step * (wait + *e.alt_op_p90_us) - k.hidden_us);
  return e;
}

double largest_bytes(const AltCurve& c) {
  return c.points.empty() ? 0 : c.points.back().bytes;
}
double smallest_bytes(const AltCurve& c) {
  return c.points.empty() ? 0 : c.points.front().bytes;
}

StepEstimate estimate_step(const BaseLevel& level, const std::vector<std::optional<AltOp>>& ops,
                           PredictMethod method) {
  StepEstimate s;
  s.method = method;
  double base_exposed = 0;
  for (std::size_t i = 0; i < level.kinds.size(); ++i) {
    const BaseKind& k = level.kinds[i];
    s.kinds.push_back(ops[i] ? estimate_kind(k, *ops[i], method) : kept_at_base(k));
    base_exposed += s.kinds.back().base_exposed_us;
    s.exposed_us += s.kinds.back().new_exposed_us;
    s.exposed_p90_us += s.kinds.back().new_exposed_p90_us;
  }
  s.step_us = level.step_us - base_exposed + s.exposed_us;
  s.step_p90_us = std::max(s.step_us, level.step_p90_us - base_exposed + s.exposed_p90_us);
  return s;
}

std::vector<std::string> moved_most(const StepEstimate& s) {
  std::vector<const KindEstimate*> kinds;
  for (const KindEstimate& k : s.kinds)
    if (k.new_exposed_us != k.base_exposed_us) kinds.push_back(&k);
  std::sort(kinds.begin(), kinds.end(), [](const KindEstimate* a, const KindEstimate* b) {
    return std::abs(a->new_exposed_us - a->base_exposed_us) >
           std::abs(b->new_exposed_us - b->base_exposed_us);
  });
  std::vector<std::string> moved;
  for (std::size_t i = 0; i < kinds.size() && i < 3; ++i)
    moved.push_back(fmt::format("{} {:+.1f} us", kind_title(kinds[i]->kind),
                                kinds[i]->new_exposed_us - kinds[i]->base_exposed_us));
  return moved;
}

// The alternative's op for each kind of `level`; refuses (sets `refused`) a size outside the measured range
// unless allowed; a kind the alternative lacks, or without a size, is kept at the base's time and said.
std::vector<std::optional<AltOp>> alt_ops(const BaseLevel& level, const AltDocument& alt,
                                          const PredictOptions& options, LevelPrediction& out) {
  std::vector<std::optional<AltOp>> ops;
  for (const BaseKind& k : level.kinds) {
    const AltCurve* curve = find_curve(alt, k.kind);
    std::optional<AltOp> op;
    if (curve == nullptr)
      out.notes.push_back(fmt::format("{}: {} has no {}: kept at the base's time", kind_title(k.kind),
                                      alt.label, kind_title(k.kind)));
    else if (k.bytes <= 0)
      out.notes.push_back(
          fmt::format("{}: the base does not give its size: kept at the base's time", kind_title(k.kind)));
    else
      op = alt_op_at(*curve, k.bytes);
    if (op && op->p50.source == EstimateSource::extrapolated && !options.allow_extrapolation &&
        out.refused.empty())
      out.refused = fmt::format(
          "{} at {:.0f} B lies outside {}'s measured {:.0f} .. {:.0f} B (--extrapolate labels it instead)",
          kind_title(k.kind), k.bytes, alt.label, smallest_bytes(*curve), largest_bytes(*curve));
    ops.push_back(op);
  }
  return ops;
}

LevelPrediction predict_level(const BaseLevel& level, const AltDocument& alt, const PredictOptions& options) {
  LevelPrediction out;
  out.batch = level.batch;
  out.step_is_tpot = level.step_is_tpot;
  out.base_step_us = level.step_us;
  out.base_step_p90_us = level.step_p90_us;
  out.notes = level.notes;
  for (const BaseKind& k : level.kinds) out.base_exposed_us += std::max(0.0, k.comm_us - k.hidden_us);
  const std::vector<std::optional<AltOp>> ops = alt_ops(level, alt, options, out);
  if (level.kinds.empty()) out.refused = "the base has no communication at this batch";
  if (!out.refused.empty()) return out;
  out.back_to_back = estimate_step(level, ops, PredictMethod::back_to_back);
  std::vector<std::string> without_join;
  for (std::size_t i = 0; i < level.kinds.size(); ++i)
    if (ops[i] && !level.kinds[i].wait_us) without_join.push_back(kind_title(level.kinds[i].kind));
  if (without_join.empty())
    out.join_aware = estimate_step(level, ops, PredictMethod::join_aware);
  else
    out.back_to_back_reason = fmt::format(
        "the base has no join information for {}: the wait for the slowest rank is dropped, so the gain may be overstated",
        fmt::format("{}", fmt::join(without_join, ", ")));
  out.moved_most = moved_most(out.predicted());
  return out;
}

void add_mismatches(const BaseDocument& base, const AltDocument& alt, AltPrediction& out) {
  if (base.ranks > 0 && alt.ranks > 0 && base.ranks != alt.ranks)
    out.mismatches.push_back(fmt::format(
        "rank count differs: the base ran {} ranks, {} measured {}: its op times are another group size's",
        base.ranks, alt.label, alt.ranks));
  std::vector<std::string> said;
  for (const BaseLevel& level : base.levels)
    for (const BaseKind& k : level.kinds) {
      const AltCurve* curve = find_curve(alt, k.kind);
      if (curve == nullptr || k.dtype.empty() || curve->dtype.empty() || curve->dtype == k.dtype) continue;
      const std::string line = fmt::format("{}: dtype differs: the base's is {}, {}'s {}", kind_title(k.kind),
                                           k.dtype, alt.label, curve->dtype);
      if (std::find(said.begin(), said.end(), line) == said.end()) said.push_back(line);
    }
  out.mismatches.insert(out.mismatches.end(), said.begin(), said.end());
}

}  // namespace

const char* to_string(PredictMethod method) {
  return method == PredictMethod::join_aware ? "join-aware" : "back-to-back";
}

AltPrediction predict_with(const BaseDocument& base, const AltDocument& alt, const PredictOptions& options) {
  AltPrediction out;
  out.label = alt.label;
  out.path = alt.path;
  out.format = alt.format;
  out.timing = alt.timing;
  out.ranks = alt.ranks;
  out.notes = alt.notes;
  add_mismatches(base, alt, out);
  for (const BaseLevel& level : base.levels) out.levels.push_back(predict_level(level, alt, options));
  out.headline = prediction_headline(out);
  return out;
}

}  // namespace k25
