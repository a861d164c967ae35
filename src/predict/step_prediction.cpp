// The prediction model (docs/predict.md): each kind's new exposed communication from the alternative's op at
// the base's size and the base's wait for the last rank (added to it, or overlapped by it), or the
// alternative's communication measured with the base's shape; the hidden part hidden up to the compute it
// ran beside.
#include "predict/step_prediction.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/loglog_curve.hpp"
#include "predict/kind_names.hpp"

namespace k25 {
namespace {

// The alternative's op at a base kind's size: p50 and p90, where that lies, and the overlap its curve
// declares.
struct AltOp {
  double p50 = 0, p90 = 0;
  OpSource source = OpSource::measured;
  AltOverlap overlap = AltOverlap::unknown;
};

OpSource op_source(EstimateSource source) {
  switch (source) {
    case EstimateSource::measured:
      return OpSource::measured;
    case EstimateSource::interpolated:
      return OpSource::interpolated;
    default:
      return OpSource::extrapolated;
  }
}

// The smallest op of a curve, p50 or p90: no op takes less at a smaller size.
double smallest_op(const AltCurve& curve, bool p90) {
  double smallest = 0;
  for (const AltPoint& p : curve.points) {
    const double op = p90 ? p.op_p90_us.value_or(p.op_us) : p.op_us;
    smallest = smallest == 0 ? op : std::min(smallest, op);
  }
  return smallest;
}

// An op outside the curve's measured sizes kept within what a link can do: below them no faster than its
// smallest measured op (latency does not fall below it) and no slower than the op at its smallest size (a
// smaller message takes no longer: a line through two noisy close sizes can fall steeply), above them no
// slower than the bandwidth of its largest size (bandwidth does not fall as sizes grow); said in `notes`
// where a floor or the bandwidth bound holds it.
AltOp bounded_extrapolation(const AltCurve& curve, double bytes, AltOp op, const std::string& label,
                            std::vector<std::string>& notes) {
  const AltPoint &first = curve.points.front(), &last = curve.points.back();
  const std::string range = fmt::format("{}'s measured {:.0f} .. {:.0f} B", label, first.bytes, last.bytes);
  const std::string title = kind_title(curve.kind);
  if (bytes < first.bytes) {
    const double floor50 = smallest_op(curve, false), floor90 = smallest_op(curve, true);
    if (op.p50 < floor50)
      notes.push_back(fmt::format(
          "{} at {:.0f} B: below {}: its smallest measured op, {:.2f} us (an op takes no less at a smaller size)",
          title, bytes, range, floor50));
    const double ceiling50 = std::max(first.op_us, floor50);
    const double ceiling90 = std::max({first.op_p90_us.value_or(first.op_us), floor90, ceiling50});
    op.p50 = std::clamp(op.p50, floor50, ceiling50);
    op.p90 = std::clamp(op.p90, std::max(floor90, op.p50), ceiling90);
  } else if (bytes > last.bytes) {
    const double line50 = last.op_us * bytes / last.bytes;
    const double line90 = last.op_p90_us.value_or(last.op_us) * bytes / last.bytes;
    if (op.p50 > line50)
      notes.push_back(fmt::format(
          "{} at {:.0f} B: above {}: bounded by the bandwidth of its largest size ({:.2f} GB/s): {:.2f} us",
          title, bytes, range, last.bytes / last.op_us / 1e3, line50));
    op.p50 = std::max(std::min(op.p50, line50), smallest_op(curve, false));
    op.p90 = std::max(std::min(op.p90, line90), op.p50);
  }
  return op;
}

// The curve's op at `bytes` on log-log axes; a one-point curve at another size only with --extrapolate (as
// flat), and a size outside the measured ones only with it, bounded (bounded_extrapolation). Empty, with
// `refusal` said, where the size cannot be had.
std::optional<AltOp> alt_op_at(const AltCurve& curve, double bytes, const std::string& label,
                               const PredictOptions& options, std::string& refusal,
                               std::vector<std::string>& notes) {
  std::vector<CurvePoint> p50, p90;
  for (const AltPoint& p : curve.points) {
    p50.push_back({p.bytes, p.op_us});
    p90.push_back({p.bytes, p.op_p90_us.value_or(p.op_us)});
  }
  const std::string title = kind_title(curve.kind);
  if (curve.points.size() == 1 && curve.points.front().bytes != bytes) {
    if (!options.allow_extrapolation) {
      refusal = fmt::format(
          "{} at {:.0f} B: {} measured it at {:.0f} B only, and one size gives no curve to read another from (--extrapolate takes it as flat)",
          title, bytes, label, curve.points.front().bytes);
      return std::nullopt;
    }
    const AltPoint& only = curve.points.front();
    return AltOp{only.op_us, std::max(only.op_us, only.op_p90_us.value_or(only.op_us)),
                 OpSource::extrapolated, curve.overlap};
  }
  const std::optional<CurveEstimate> at50 = LogLogCurve(p50).at(bytes), at90 = LogLogCurve(p90).at(bytes);
  if (!at50 || !at90) return std::nullopt;
  const AltOp op{at50->value, std::max(at50->value, at90->value), op_source(at50->source), curve.overlap};
  if (op.source != OpSource::extrapolated) return op;
  if (!options.allow_extrapolation) {
    refusal = fmt::format(
        "{} at {:.0f} B lies outside {}'s measured {:.0f} .. {:.0f} B (--extrapolate labels it instead)",
        title, bytes, label, curve.points.front().bytes, curve.points.back().bytes);
    return std::nullopt;
  }
  return bounded_extrapolation(curve, bytes, op, label, notes);
}

KindEstimate kept_at_base(const BaseKind& k) {
  KindEstimate e;
  e.kind = k.kind;
  e.name = k.name;
  e.bytes = k.bytes;
  e.ops_per_step = k.ops_per_step;
  e.base_comm_us = k.comm_us;
  e.base_exposed_us = k.exposed_us();
  e.hidden_us = k.hidden_us;
  e.source = OpSource::kept;
  e.new_comm_us = k.comm_us;
  e.new_exposed_us = e.new_exposed_p90_us = e.base_exposed_us;
  return e;
}

// One op on the alternative under `method`, from its op time `alt` and the base's wait.
double new_op_us(PredictMethod method, double wait, double alt) {
  switch (method) {
    case PredictMethod::additive:
      return wait + alt;
    case PredictMethod::overlapping:
      return std::max(wait, alt);
    default:
      return alt;  // back-to-back; measured-shape's op is the measured communication per op
  }
}

KindEstimate estimate_kind(const BaseKind& k, const AltOp& op, PredictMethod method) {
  KindEstimate e = kept_at_base(k);
  e.method = method;
  e.source = op.source;
  e.alt_op_us = op.p50;
  e.alt_op_p90_us = op.p90;
  const bool keeps_wait = method == PredictMethod::additive || method == PredictMethod::overlapping;
  const double wait = keeps_wait && k.join ? k.join->wait_us : 0;
  if (keeps_wait && k.join) e.wait_us = wait;
  e.new_comm_us = k.ops_per_step * new_op_us(method, wait, op.p50);
  e.new_exposed_us = exposed_part(e.new_comm_us, k.hidden_us);
  e.new_exposed_p90_us = exposed_part(k.ops_per_step * new_op_us(method, wait, op.p90), k.hidden_us);
  return e;
}

// The method a kind takes at one end of the range: the one its curve declares, else the end's.
PredictMethod kind_method(PredictMethod end, const std::optional<AltOp>& op) {
  if (!op || (end != PredictMethod::additive && end != PredictMethod::overlapping)) return end;
  if (op->overlap == AltOverlap::additive) return PredictMethod::additive;
  if (op->overlap == AltOverlap::overlapping) return PredictMethod::overlapping;
  return end;
}

StepEstimate estimate_step(const BaseLevel& level, const std::vector<std::optional<AltOp>>& ops,
                           PredictMethod method) {
  StepEstimate s;
  s.method = method;
  double base_exposed = 0;
  for (std::size_t i = 0; i < level.kinds.size(); ++i) {
    const BaseKind& k = level.kinds[i];
    s.kinds.push_back(ops[i] ? estimate_kind(k, *ops[i], kind_method(method, ops[i])) : kept_at_base(k));
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
    moved.push_back(
        fmt::format("{} {:+.1f} us", kinds[i]->name, kinds[i]->new_exposed_us - kinds[i]->base_exposed_us));
  return moved;
}

// The alternative's op in `curves` for each kind of `level`; sets `refused` for a size that cannot be had
// (outside the measured range without --extrapolate, a one-point curve at another size); a kind the
// alternative lacks, or without a size, is kept at the base's time and said in `notes`.
std::vector<std::optional<AltOp>> alt_ops(const BaseLevel& level, const std::vector<AltCurve>& curves,
                                          const std::string& label, const PredictOptions& options,
                                          std::string& refused, std::vector<std::string>& notes) {
  std::vector<std::optional<AltOp>> ops;
  for (const BaseKind& k : level.kinds) {
    std::string why_not, refusal;
    const AltCurve* curve = find_curve(curves, k, why_not);
    std::optional<AltOp> op;
    if (curve == nullptr && why_not.empty())
      notes.push_back(
          fmt::format("{}: {} has no {}: kept at the base's time", k.name, label, kind_title(k.kind)));
    else if (curve == nullptr)
      notes.push_back(fmt::format("{}: {}'s {} is {}: kept at the base's time", k.name, label,
                                  kind_title(k.kind), why_not));
    else if (k.bytes <= 0)
      notes.push_back(fmt::format("{}: the base does not give its size: kept at the base's time", k.name));
    else
      op = alt_op_at(*curve, k.bytes, label, options, refusal, notes);
    if (!refusal.empty() && refused.empty()) refused = refusal;
    ops.push_back(op);
  }
  return ops;
}

// The measured-shape estimate where the alternative's decode mode ran the base's shape; said in `notes`
// where it ran another.
std::optional<StepEstimate> measured_shape_estimate(const BaseDocument& base, const BaseLevel& level,
                                                    const AltDocument& alt, const PredictOptions& options,
                                                    std::vector<std::string>& notes) {
  if (alt.shaped.empty() || base.shape.empty()) return std::nullopt;
  if (alt.shape != base.shape) {
    notes.push_back(fmt::format("{}'s decode mode ran another shape ({}) than the base's ({}): not used",
                                alt.label, alt.shape, base.shape));
    return std::nullopt;
  }
  std::string refused;
  std::vector<std::string> shaped_notes;
  const std::vector<std::optional<AltOp>> ops =
      alt_ops(level, alt.shaped, alt.label, options, refused, shaped_notes);
  if (!refused.empty() ||
      std::none_of(ops.begin(), ops.end(), [](const auto& op) { return op.has_value(); })) {
    notes.push_back(fmt::format("{}'s decode mode ran the base's shape, but not at these sizes{}", alt.label,
                                refused.empty() ? "" : ": " + refused));
    return std::nullopt;
  }
  return estimate_step(level, ops, PredictMethod::measured_shape);
}

// Why the overlapping and additive ends of `out` are one figure, in words; empty where the headline would
// show them apart: the base's wait is 0 for the kinds whose overlap is not said (nothing for their transfer
// to overlap), or their communication stays hidden behind compute either way, or the two differ by less than
// the headline shows.
std::string ends_agree(const BaseLevel& level, const std::vector<std::optional<AltOp>>& ops,
                       const LevelPrediction& out, const std::vector<std::string>& undeclared) {
  const StepEstimate &low = *out.estimate(PredictMethod::overlapping),
                     &high = *out.estimate(PredictMethod::additive);
  if (!same_in_headline(out, low.step_us, high.step_us)) return {};
  bool no_wait = true, hidden = true;
  for (std::size_t i = 0; i < level.kinds.size(); ++i) {
    if (!ops[i] || ops[i]->overlap != AltOverlap::unknown) continue;
    no_wait &= level.kinds[i].join && level.kinds[i].join->wait_us == 0;
    hidden &= low.kinds[i].new_exposed_us == 0 && high.kinds[i].new_exposed_us == 0;
  }
  const std::string names = fmt::format("{}", fmt::join(undeclared, ", "));
  if (no_wait)
    return fmt::format("the base's wait for {} is 0 us per op: nothing for the transfer to overlap", names);
  if (hidden) return fmt::format("{} stays hidden behind compute either way", names);
  return fmt::format("they differ by {:.1f} us ({:.2f} % of the step), less than the headline shows",
                     high.step_us - low.step_us, (high.step_us - low.step_us) / level.step_us * 100);
}

// The predicted figure's ends and why, from the estimates made.
void choose_prediction(const BaseLevel& level, const std::vector<std::optional<AltOp>>& ops,
                       const std::string& label, LevelPrediction& out) {
  if (out.estimate(PredictMethod::measured_shape) != nullptr) {
    out.low = out.high = PredictMethod::measured_shape;
    out.why = fmt::format(
        "{}'s decode mode ran this base's gaps and skew: its communication measured, the compute the base's",
        label);
    return;
  }
  if (out.estimate(PredictMethod::additive) == nullptr) {
    std::vector<std::string> without_join;
    for (std::size_t i = 0; i < level.kinds.size(); ++i)
      if (ops[i] && !level.kinds[i].join) without_join.push_back(level.kinds[i].name);
    out.low = out.high = PredictMethod::back_to_back;
    out.why = fmt::format(
        "the base has no join information for {}: the wait for the slowest rank is dropped, so the gain may be overstated",
        fmt::join(without_join, ", "));
    return;
  }
  std::vector<std::string> undeclared;
  bool any_additive = false, any_overlapping = false;
  for (std::size_t i = 0; i < level.kinds.size(); ++i) {
    if (!ops[i]) continue;
    if (ops[i]->overlap == AltOverlap::unknown) undeclared.push_back(level.kinds[i].name);
    any_additive |= ops[i]->overlap == AltOverlap::additive;
    any_overlapping |= ops[i]->overlap == AltOverlap::overlapping;
  }
  if (undeclared.empty()) {
    out.low = out.high =
        any_overlapping && !any_additive ? PredictMethod::overlapping : PredictMethod::additive;
    out.why = any_overlapping && any_additive ? fmt::format("each kind as {} declares it", label)
                                              : fmt::format("{} declares it", label);
    return;
  }
  out.low = PredictMethod::overlapping;
  out.high = PredictMethod::additive;
  out.why = fmt::format(
      "how {}'s {} lies against the ranks' wait is not said: a one-shot push overlaps it, a ring adds to it",
      label, fmt::join(undeclared, ", "));
  if (const std::string agree = ends_agree(level, ops, out, undeclared); !agree.empty()) {
    out.low = out.high = PredictMethod::additive;
    out.why = "overlapping and additive agree: " + agree;
  }
}

// Where the alternative's op of a kind came from, in words: "extrapolated from nv's 1024 .. 4096 B".
std::string op_origin(const KindEstimate& k, const BaseKind& base_kind, const AltDocument& alt) {
  std::string why_not;
  const AltCurve* curve = find_curve(alt.curves, base_kind, why_not);
  if (curve == nullptr || curve->points.empty()) return to_string(k.source);
  const double first = curve->points.front().bytes, last = curve->points.back().bytes;
  return first == last
             ? fmt::format("{} from {}'s {:.0f} B", to_string(k.source), alt.label, first)
             : fmt::format("{} from {}'s {:.0f} .. {:.0f} B", to_string(k.source), alt.label, first, last);
}

// Refuses a level whose predicted TPOT (either end) is more than kImplausibleFactor times the base's, or less
// than its 1/kImplausibleFactor, or nothing, and a step (no TPOT: a replay's or a trace's step, whose
// communication may be most of it) moved that far by an extrapolated op: saying the figures and the kind
// whose op made it. A step moved that far by measured ops is what the alternative measured (a link 20x
// slower).
void refuse_implausible(const BaseLevel& level, const AltDocument& alt, LevelPrediction& out) {
  if (!out.refused.empty() || out.base_step_us <= 0) return;
  const StepEstimate* worst = nullptr;
  double worst_factor = 1;
  for (const PredictMethod end : {out.low, out.high}) {
    const StepEstimate& e = *out.estimate(end);
    const double factor = e.step_us <= 0
                              ? std::numeric_limits<double>::infinity()
                              : std::max(e.step_us / out.base_step_us, out.base_step_us / e.step_us);
    if (factor > worst_factor) {
      worst = &e;
      worst_factor = factor;
    }
  }
  if (worst == nullptr || worst_factor <= kImplausibleFactor) return;
  std::size_t moved = 0;
  for (std::size_t i = 1; i < worst->kinds.size(); ++i)
    if (std::abs(worst->kinds[i].new_exposed_us - worst->kinds[i].base_exposed_us) >
        std::abs(worst->kinds[moved].new_exposed_us - worst->kinds[moved].base_exposed_us))
      moved = i;
  const KindEstimate& k = worst->kinds[moved];
  if (!out.step_is_tpot && k.source != OpSource::extrapolated) return;
  const std::string ratio =
      worst->step_us <= 0 ? "nothing: more communication taken out than the step holds"
      : worst->step_us > out.base_step_us
          ? fmt::format("{:.1f}x the base's (more than {:g}x)", worst_factor, kImplausibleFactor)
          : fmt::format("1/{:.1f} of the base's (less than 1/{:g})", worst_factor, kImplausibleFactor);
  const std::string op = k.alt_op_us ? fmt::format("{} at {:.0f} B taken as {:.2f} us ({})", k.name, k.bytes,
                                                   *k.alt_op_us, op_origin(k, level.kinds[moved], alt))
                                     : fmt::format("{} kept at the base's {:.1f} us", k.name, k.base_comm_us);
  out.refused = fmt::format("implausible: {} {} -> {} is {}: {}; measure {} at the base's sizes",
                            out.step_is_tpot ? "TPOT" : "step", step_text(out, out.base_step_us),
                            step_text(out, worst->step_us), ratio, op, alt.label);
  out.estimates.clear();
  out.moved_most.clear();
  out.low = out.high = PredictMethod::back_to_back;
  out.why.clear();
}

LevelPrediction predict_level(const BaseDocument& base, const BaseLevel& level, const AltDocument& alt,
                              const PredictOptions& options) {
  LevelPrediction out;
  out.batch = level.batch;
  out.step_is_tpot = level.step_is_tpot;
  out.base_step_us = level.step_us;
  out.base_step_p90_us = level.step_p90_us;
  out.notes = level.notes;
  out.caveats = base.caveats;
  out.caveats.insert(out.caveats.end(), level.caveats.begin(), level.caveats.end());
  for (const BaseKind& k : level.kinds) out.base_exposed_us += k.exposed_us();
  const std::vector<std::optional<AltOp>> ops =
      alt_ops(level, alt.curves, alt.label, options, out.refused, out.notes);
  if (level.kinds.empty()) out.refused = "the base has no communication at this batch";
  if (out.refused.empty() &&
      std::none_of(ops.begin(), ops.end(), [](const auto& op) { return op.has_value(); })) {
    std::vector<std::string> names;
    for (const BaseKind& k : level.kinds) names.push_back(k.name);
    out.refused =
        fmt::format("{} gives none of the base's kinds at their sizes ({}): nothing to predict with",
                    alt.label, fmt::join(names, ", "));
  }
  std::optional<StepEstimate> shaped = measured_shape_estimate(base, level, alt, options, out.notes);
  if (!out.refused.empty()) {
    if (!shaped) return out;
    out.notes.push_back("no modelled estimate: " + out.refused);
    out.refused.clear();
    out.estimates.push_back(*shaped);
    choose_prediction(level, ops, alt.label, out);
    out.moved_most = moved_most(out.high_estimate());
    refuse_implausible(level, alt, out);
    return out;
  }
  bool join_for_all = true;
  for (std::size_t i = 0; i < level.kinds.size(); ++i)
    if (ops[i] && !level.kinds[i].join) join_for_all = false;
  if (join_for_all) {
    out.estimates.push_back(estimate_step(level, ops, PredictMethod::additive));
    out.estimates.push_back(estimate_step(level, ops, PredictMethod::overlapping));
  }
  out.estimates.push_back(estimate_step(level, ops, PredictMethod::back_to_back));
  if (shaped) out.estimates.push_back(*shaped);
  choose_prediction(level, ops, alt.label, out);
  out.moved_most = moved_most(out.high_estimate());
  refuse_implausible(level, alt, out);
  return out;
}

void add_mismatches(const BaseDocument& base, const AltDocument& alt, AltPrediction& out) {
  if (base.ranks > 0 && alt.ranks > 0 && base.ranks != alt.ranks)
    out.mismatches.push_back(fmt::format(
        "rank count differs: the base's group is {} ranks, {} measured {}: its op times are another group size's",
        base.ranks, alt.label, alt.ranks));
  std::vector<std::string> said;
  const auto say = [&](const std::string& line) {
    if (std::find(said.begin(), said.end(), line) == said.end()) said.push_back(line);
  };
  for (const BaseLevel& level : base.levels)
    for (const BaseKind& k : level.kinds) {
      std::string why_not;
      const AltCurve* curve = find_curve(alt.curves, k, why_not);
      if (curve == nullptr) continue;
      if (!k.dtype.empty() && !curve->dtype.empty() && curve->dtype != k.dtype)
        say(fmt::format("{}: dtype differs: the base's is {}, {}'s {}", k.name, k.dtype, alt.label,
                        curve->dtype));
      if (!k.launch.empty() && !alt.launch.empty() && k.launch != alt.launch)
        say(fmt::format(
            "{}: launched as {} in the base, as {} in {}: a graph's op leaves out the launch cost an eager one pays",
            k.name, k.launch, alt.launch, alt.label));
    }
  out.mismatches.insert(out.mismatches.end(), said.begin(), said.end());
  out.mismatches.insert(out.mismatches.end(), alt.mismatches.begin(), alt.mismatches.end());
}

}  // namespace

const StepEstimate* LevelPrediction::estimate(PredictMethod method) const {
  for (const StepEstimate& e : estimates)
    if (e.method == method) return &e;
  return nullptr;
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
  for (const BaseLevel& level : base.levels) out.levels.push_back(predict_level(base, level, alt, options));
  out.headline = prediction_headline(out);
  return out;
}

}  // namespace k25
