// A replay report (with or without serve figures) as predict's base.
#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "analysis/loglog_curve.hpp"
#include "common/error.hpp"
#include "predict/report_inputs.hpp"
#include "predict/report_phases.hpp"

namespace k25 {
namespace {

constexpr Phase kBasePhases[] = {Phase::allreduce, Phase::dispatch, Phase::combine, Phase::allgather,
                                 Phase::reducescatter};

// The mode a phase's step is taken in: decode (compute gaps and skew, its join measured), else eager, else
// graph.
std::optional<TimingMode> base_mode(const std::vector<PhaseResult>& results, Phase phase) {
  return first_measured_mode(results, phase, {TimingMode::decode, TimingMode::eager, TimingMode::graph});
}

// The result of (phase, mode) nearest `tokens` (the sizes of other token counts scale from it).
const PhaseResult* nearest_result(const std::vector<PhaseResult>& results, Phase phase, TimingMode mode,
                                  double tokens) {
  const PhaseResult* best = nullptr;
  for (const PhaseResult& r : results)
    if (r.phase == phase && r.mode == mode &&
        (best == nullptr || std::abs(std::log(r.requested_tokens / tokens)) <
                                std::abs(std::log(best->requested_tokens / tokens))))
      best = &r;
  return best;
}

// The eager burst's op p50 of `phase` at `tokens` on log-log axes; empty without eager results.
std::optional<double> eager_burst_op_us(const std::vector<PhaseResult>& results, Phase phase, double tokens) {
  std::vector<CurvePoint> points;
  for (const PhaseResult& r : results)
    if (r.phase == phase && r.mode == TimingMode::eager && r.step_us.p50 > 0)
      points.push_back({static_cast<double>(r.requested_tokens), burst_op_point(r).op_us});
  const std::optional<CurveEstimate> estimate = LogLogCurve(points).at(tokens);
  if (!estimate) return std::nullopt;
  return estimate->value;
}

// One phase's kind at `tokens` with `comm_us` per step, its size and op count from the nearest result; in
// decode mode each op split into the wait (its decode op less the eager op) and the transfer (the eager op).
BaseKind phase_kind(const std::vector<PhaseResult>& results, Phase phase, TimingMode mode, double tokens,
                    double comm_us) {
  const PhaseResult& r = *nearest_result(results, phase, mode, tokens);
  const AltCurve key = phase_curve_key(r);
  BaseKind kind;
  kind.kind = key.kind;
  kind.name = key.name;
  kind.dtype = key.dtype;
  kind.launch = mode == TimingMode::graph ? "graph" : "eager";
  const double size = op_size_bytes(r);
  kind.bytes = r.requested_tokens > 0 ? size * tokens / r.requested_tokens : size;
  kind.ops_per_step = r.ops_per_step;
  kind.comm_us = comm_us;
  if (mode != TimingMode::decode || kind.ops_per_step <= 0) return kind;
  if (const std::optional<double> eager = eager_burst_op_us(results, phase, tokens)) {
    const double per_op = comm_us / kind.ops_per_step;
    kind.join =
        BaseJoin{per_op - std::min(*eager, per_op), std::min(*eager, per_op),
                 "decode mode: its communication per op less the eager burst's op at the same tokens"};
  }
  return kind;
}

BaseLevel serve_level(const RunReport& report, const AttributionRow& row) {
  BaseLevel level;
  level.batch = row.concurrency;
  level.step_is_tpot = true;
  level.step_us = level.step_p90_us = row.tpot_ms * 1000;
  for (const ServeLevel& s : report.serve.levels)
    if (s.concurrency == row.concurrency && s.tpot_ms) level.step_p90_us = s.tpot_ms->p90 * 1000;
  for (const Phase phase : kBasePhases) {
    const std::optional<TimingMode> mode = base_mode(report.results, phase);
    if (!mode) continue;
    const CommShare* share = find_share(row, fmt::format("{}_{}", enum_name(phase), enum_name(*mode)));
    if (share == nullptr) continue;
    level.kinds.push_back(phase_kind(report.results, phase, *mode, share->tokens, share->comm_ms * 1000));
    if (share->source != EstimateSource::measured)
      level.notes.push_back(fmt::format("{} at {:g} tokens: the replay's figure is {}", enum_name(phase),
                                        share->tokens, to_string(share->source)));
  }
  return level;
}

// A level per measured token count of a report without serve figures.
std::vector<BaseLevel> replay_levels(const RunReport& report) {
  std::set<int> tokens;
  for (const PhaseResult& r : report.results) tokens.insert(r.requested_tokens);
  std::vector<BaseLevel> levels;
  for (const int t : tokens) {
    BaseLevel level;
    level.batch = t;
    for (const Phase phase : kBasePhases) {
      const std::optional<TimingMode> mode = base_mode(report.results, phase);
      const auto r = std::find_if(report.results.begin(), report.results.end(), [&](const PhaseResult& x) {
        return mode && x.phase == phase && x.mode == *mode && x.requested_tokens == t;
      });
      if (r == report.results.end()) continue;
      const double comm = r->decode ? r->decode->comm_us.p50 : r->step_us.p50;
      level.step_us += r->step_us.p50;
      level.step_p90_us += r->step_us.p90;
      level.kinds.push_back(phase_kind(report.results, phase, *mode, t, comm));
    }
    if (!level.kinds.empty()) levels.push_back(std::move(level));
  }
  return levels;
}

}  // namespace

BaseDocument base_from_report(const RunReport& report, const std::string& path) {
  if (report.results.empty())
    throw UsageError(path + ": a report without results: no communication to predict from");
  BaseDocument base;
  base.path = path;
  base.format = "report.json";
  base.ranks = report.run.ranks;
  for (const PhaseResult& r : report.results)
    if (r.decode && !r.decode->shape.empty() && base.shape.empty()) base.shape = r.decode->shape;
  for (const AttributionRow& row : report.attribution) base.levels.push_back(serve_level(report, row));
  if (!base.levels.empty()) {
    base.step_what = "serve TPOT p50 (the attribution's communication at T = C)";
  } else {
    base.step_what = "the replay's step (step_us p50; phases measured on their own added)";
    base.levels = replay_levels(report);
    base.notes.push_back("no serve figures: the step is predicted, not TPOT");
  }
  base.notes.push_back("a replay's communication is taken as exposed: nothing ran beside it");
  return base;
}

}  // namespace k25
