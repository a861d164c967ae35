// A replay report (with or without serve figures) as predict's base.
#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "analysis/headline.hpp"
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

// The decode mode's communication of `phase` per step at `tokens` (decode comm_us p50) on log-log axes, and
// whether measured there; empty without decode results.
std::optional<CurveEstimate> decode_comm_us(const std::vector<PhaseResult>& results, Phase phase,
                                            double tokens) {
  std::vector<CurvePoint> points;
  for (const PhaseResult& r : results)
    if (r.phase == phase && r.mode == TimingMode::decode && r.decode && r.decode->comm_us.p50 > 0)
      points.push_back({static_cast<double>(r.requested_tokens), r.decode->comm_us.p50});
  return LogLogCurve(points).at(tokens);
}

// "AllReduce at T=4", "dispatch at 2 tokens a rank": a kind at the tokens it was read at.
std::string kind_at(const BaseKind& kind, Phase phase, double tokens) {
  return phase == Phase::dispatch || phase == Phase::combine
             ? fmt::format("{} at {:g} tokens a rank", kind.name, tokens)
             : fmt::format("{} at T={:g}", kind.name, tokens);
}

// One phase's kind at `tokens` with `comm_us` per step, its size and op count from the nearest result; in
// decode mode each op split into the wait (its decode op less the eager op) and the transfer (the eager op),
// a wait below 0 (the decode op faster than the eager one: noise between two runs) taken as 0 and said in the
// level's notes and the base's (`said`).
struct Said {
  std::vector<std::string>& level;
  std::vector<std::string>& base;
};
BaseKind phase_kind(const std::vector<PhaseResult>& results, Phase phase, TimingMode mode, double tokens,
                    double comm_us, const Said& said) {
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
    if (*eager > per_op) {
      const std::string clamped = fmt::format(
          "{}: the decode mode's op ({:.2f} us) is faster than the eager burst's op ({:.2f} us), noise between the two: its wait taken as 0",
          kind_at(kind, phase, tokens), per_op, *eager);
      said.level.push_back(clamped);
      said.base.push_back(clamped);
    }
  }
  return kind;
}

// A kind of a serve level at `tokens` (the attribution's T = C, or tokens a rank): its decode mode's
// communication there where the replay ran it (the ranks' wait included, split from the transfer), else the
// attribution's share of `mode`; empty where neither has it.
std::optional<BaseKind> serve_kind(const RunReport& report, const AttributionRow& row, Phase phase,
                                   TimingMode mode, BaseLevel& level, std::vector<std::string>& base_notes) {
  const bool per_rank = phase == Phase::dispatch || phase == Phase::combine;
  if (mode == TimingMode::decode) {
    const double tokens = per_rank ? row.alltoall_tokens_per_rank : row.tokens;
    const std::optional<CurveEstimate> comm = decode_comm_us(report.results, phase, tokens);
    if (!comm) return std::nullopt;
    BaseKind kind = phase_kind(report.results, phase, mode, tokens, comm->value, {level.notes, base_notes});
    level.notes.push_back(fmt::format(
        "{}: the decode mode's communication, {:.1f} us a step ({}), set against TPOT: the ranks' wait included",
        kind_at(kind, phase, tokens), comm->value, to_string(comm->source)));
    return kind;
  }
  const CommShare* share = find_share(row, share_key(phase, mode));
  if (share == nullptr) return std::nullopt;
  if (share->source != EstimateSource::measured)
    level.notes.push_back(fmt::format("{} at {:g} tokens: the replay's figure is {}", enum_name(phase),
                                      share->tokens, to_string(share->source)));
  return phase_kind(report.results, phase, mode, share->tokens, share->comm_ms * 1000,
                    {level.notes, base_notes});
}

BaseLevel serve_level(const RunReport& report, const AttributionRow& row,
                      std::vector<std::string>& base_notes) {
  BaseLevel level;
  level.batch = row.concurrency;
  level.step_is_tpot = true;
  level.step_us = level.step_p90_us = row.tpot_ms * 1000;
  for (const ServeLevel& s : report.serve.levels)
    if (s.concurrency == row.concurrency && s.tpot_ms) level.step_p90_us = s.tpot_ms->p90 * 1000;
  for (const Phase phase : kBasePhases) {
    const std::optional<TimingMode> mode = base_mode(report.results, phase);
    if (!mode) continue;
    if (std::optional<BaseKind> kind = serve_kind(report, row, phase, *mode, level, base_notes))
      level.kinds.push_back(std::move(*kind));
  }
  return level;
}

// A level per measured token count of a report without serve figures.
std::vector<BaseLevel> replay_levels(const RunReport& report, std::vector<std::string>& base_notes) {
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
      level.kinds.push_back(phase_kind(report.results, phase, *mode, t, comm, {level.notes, base_notes}));
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
  for (const AttributionRow& row : report.attribution)
    base.levels.push_back(serve_level(report, row, base.notes));
  if (!base.levels.empty()) {
    base.step_what =
        "serve TPOT p50 (the replay's communication at T = C: its decode mode's where it ran one, else the attribution's)";
  } else {
    base.step_what = "the replay's step (step_us p50; phases measured on their own added)";
    base.levels = replay_levels(report, base.notes);
    base.notes.push_back("no serve figures: the step is predicted, not TPOT");
  }
  base.notes.push_back("a replay's communication is taken as exposed: nothing ran beside it");
  const HeadlineTags tags = headline_tags(report);
  base.caveats = tags.communication;
  if (!report.attribution.empty())
    base.caveats.insert(base.caveats.end(), tags.serving.begin(), tags.serving.end());
  return base;
}

}  // namespace k25
