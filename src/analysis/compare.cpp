// Matching, verdicts and the side-by-side table of `k25comm compare`.
#include "analysis/compare.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <ostream>
#include <tuple>

#include <fmt/format.h>

#include "analysis/report_identity.hpp"
#include "analysis/report_reader.hpp"
#include "common/error.hpp"

namespace k25 {

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::same:
      return "same";
    case Verdict::noisy:
      return "noisy";
    case Verdict::regression:
      return "REGRESSION";
    case Verdict::improved:
      return "improved";
    case Verdict::wrong:
      return "WRONG";
    case Verdict::only_base:
      return "only in base";
    case Verdict::only_new:
      return "only in new";
  }
  return "?";
}

bool Comparison::has_regression() const {
  return count(Verdict::regression) > 0 || count(Verdict::wrong) > 0;
}

int Comparison::count(Verdict verdict) const {
  return static_cast<int>(std::count_if(figures.begin(), figures.end(),
                                        [verdict](const ComparedFigure& f) { return f.verdict == verdict; }));
}

namespace {

using ResultKey = std::tuple<Phase, int, TimingMode>;

ResultKey key_of(const PhaseResult& r) {
  return {r.phase, r.tokens, r.mode};
}

std::string point_name(const PhaseResult& r) {
  return fmt::format("{} T={} {}", to_string(r.phase), r.tokens, to_string(r.mode));
}

// p90/p50 - 1 of a distribution; 0 when p50 is not positive.
double relative_spread(const Stats& s) {
  return s.p50 > 0 ? std::max(s.p90 / s.p50 - 1.0, 0.0) : 0.0;
}

// Verdict of a figure measured on both sides (both positive).
Verdict judge(double base, double next, bool lower_is_better, double spread, double threshold) {
  const double worse = lower_is_better ? next / base - 1.0 : base / next - 1.0;
  const double better = lower_is_better ? base / next - 1.0 : next / base - 1.0;
  const double allowance = std::max(threshold, spread);
  if (worse > allowance) return Verdict::regression;
  if (better > allowance) return Verdict::improved;
  if (worse > threshold || better > threshold) return Verdict::noisy;
  return Verdict::same;
}

ComparedFigure both_sides(std::string point, std::string figure, bool lower_is_better, double base,
                          double next, double spread, double threshold) {
  ComparedFigure f{std::move(point), std::move(figure), lower_is_better, base, next, 0.0,
                   spread,           Verdict::same};
  if (base > 0 && next > 0) {
    f.ratio = next / base;
    f.verdict = judge(base, next, lower_is_better, spread, threshold);
  } else if (base > 0 || next > 0) {
    // Measured on one side only (e.g. nothing completed): the side without a figure is the worse one.
    const bool new_missing = !(next > 0);
    f.verdict = new_missing ? Verdict::regression : Verdict::improved;
  }
  return f;
}

ComparedFigure one_side(std::string point, std::string figure, double value, bool in_base) {
  ComparedFigure f;
  f.point = std::move(point);
  f.figure = std::move(figure);
  (in_base ? f.base : f.next) = value;
  f.verdict = in_base ? Verdict::only_base : Verdict::only_new;
  return f;
}

std::map<ResultKey, const PhaseResult*> index_results(const RunReport& report) {
  std::map<ResultKey, const PhaseResult*> index;
  for (const PhaseResult& r : report.results) index[key_of(r)] = &r;
  return index;
}

std::map<int, const ServeLevel*> index_levels(const RunReport& report) {
  std::map<int, const ServeLevel*> index;
  for (const ServeLevel& l : report.serve.levels) index[l.concurrency] = &l;
  return index;
}

bool shares_a_point(const RunReport& base, const RunReport& next) {
  const auto base_results = index_results(base);
  for (const PhaseResult& r : next.results) {
    if (base_results.count(key_of(r))) return true;
  }
  const auto base_levels = index_levels(base);
  for (const ServeLevel& l : next.serve.levels) {
    if (base_levels.count(l.concurrency)) return true;
  }
  return false;
}

}  // namespace

void check_comparable(const RunReport& base, const RunReport& next) {
  if (base.schema_version != next.schema_version) {
    throw UsageError(fmt::format("cannot compare: schema_version {} (base) and {} (new) differ",
                                 base.schema_version, next.schema_version));
  }
  const std::string base_model = report_model_name(base), new_model = report_model_name(next);
  if (!base_model.empty() && !new_model.empty() && base_model != new_model) {
    throw UsageError(
        fmt::format("cannot compare: the base measured model '{}', the new run '{}'", base_model, new_model));
  }
  if (!shares_a_point(base, next)) {
    throw UsageError(
        "cannot compare: the two reports have no (phase, tokens, mode) point and no serve concurrency in "
        "common");
  }
}

Comparison compare_reports(const RunReport& base, const RunReport& next, double threshold_pct) {
  check_comparable(base, next);
  const double threshold = threshold_pct / 100.0;
  Comparison c;
  c.base_label = report_label(base);
  c.new_label = report_label(next);
  c.model = report_model_name(next).empty() ? report_model_name(base) : report_model_name(next);
  c.threshold_pct = threshold_pct;

  if (base.topology.kind != next.topology.kind) {
    c.notes.push_back(
        fmt::format("topologies differ: {} (base) vs {} (new)", base.topology.kind, next.topology.kind));
  }
  if (base.run.ranks != next.run.ranks) {
    c.notes.push_back(
        fmt::format("rank counts differ: {} (base) vs {} (new)", base.run.ranks, next.run.ranks));
  }
  if (base.run.transport != next.run.transport) {
    c.notes.push_back(
        fmt::format("transports differ: {} (base) vs {} (new)", base.run.transport, next.run.transport));
  }
  if (!base.run.complete) c.notes.push_back("the base run is incomplete: " + base.run.incomplete_reason);
  if (!next.run.complete) c.notes.push_back("the new run is incomplete: " + next.run.incomplete_reason);

  const auto base_results = index_results(base);
  const auto new_results = index_results(next);
  std::map<ResultKey, bool> keys;
  for (const auto& [key, r] : base_results) keys[key] = true;
  for (const auto& [key, r] : new_results) keys[key] = true;
  for (const auto& [key, unused] : keys) {
    const auto b = base_results.find(key);
    const auto n = new_results.find(key);
    if (b == base_results.end()) {
      c.figures.push_back(one_side(point_name(*n->second), "step p50 us", n->second->step_us.p50, false));
      continue;
    }
    if (n == new_results.end()) {
      c.figures.push_back(one_side(point_name(*b->second), "step p50 us", b->second->step_us.p50, true));
      continue;
    }
    const PhaseResult& br = *b->second;
    const PhaseResult& nr = *n->second;
    ComparedFigure f =
        both_sides(point_name(nr), "step p50 us", true, br.step_us.p50, nr.step_us.p50,
                   std::max(relative_spread(br.step_us), relative_spread(nr.step_us)), threshold);
    if (nr.wrong > 0 && br.wrong == 0) f.verdict = Verdict::wrong;
    c.figures.push_back(std::move(f));
  }

  const auto base_levels = index_levels(base);
  const auto new_levels = index_levels(next);
  std::map<int, bool> levels;
  for (const auto& [conc, l] : base_levels) levels[conc] = true;
  for (const auto& [conc, l] : new_levels) levels[conc] = true;
  for (const auto& [concurrency, unused] : levels) {
    const std::string point = fmt::format("serve C={}", concurrency);
    const auto b = base_levels.find(concurrency);
    const auto n = new_levels.find(concurrency);
    if (b == base_levels.end()) {
      c.figures.push_back(one_side(point, "TPOT p50 ms", n->second->tpot_ms.p50, false));
      continue;
    }
    if (n == new_levels.end()) {
      c.figures.push_back(one_side(point, "TPOT p50 ms", b->second->tpot_ms.p50, true));
      continue;
    }
    const ServeLevel& bl = *b->second;
    const ServeLevel& nl = *n->second;
    const double spread = std::max(relative_spread(bl.tpot_ms), relative_spread(nl.tpot_ms));
    c.figures.push_back(both_sides(point, "TPOT p50 ms", true, bl.completed > 0 ? bl.tpot_ms.p50 : 0.0,
                                   nl.completed > 0 ? nl.tpot_ms.p50 : 0.0, spread, threshold));
    c.figures.push_back(both_sides(point, "output tok/s", false, bl.output_tokens_per_s,
                                   nl.output_tokens_per_s, spread, threshold));
  }
  return c;
}

namespace {

std::string format_value(double value) {
  if (value == 0) return "-";
  if (value >= 1000) return fmt::format("{:.0f}", value);
  if (value >= 100) return fmt::format("{:.1f}", value);
  if (value >= 10) return fmt::format("{:.2f}", value);
  return fmt::format("{:.3f}", value);
}

std::string first_word(const std::string& label) {
  return label.substr(0, label.find(','));
}

}  // namespace

std::string render_comparison(const Comparison& c) {
  const std::string base_head = "base (" + first_word(c.base_label) + ")";
  const std::string new_head = "new (" + first_word(c.new_label) + ")";
  std::size_t point_width = 5, figure_width = 6;
  for (const ComparedFigure& f : c.figures) {
    point_width = std::max(point_width, f.point.size());
    figure_width = std::max(figure_width, f.figure.size());
  }
  const std::size_t value_width = std::max<std::size_t>({12, base_head.size(), new_head.size()});

  std::string text;
  text += fmt::format("k25comm compare{}: threshold {:.1f} %, noise allowance p90/p50 of each run\n",
                      c.model.empty() ? "" : " of " + c.model, c.threshold_pct);
  text += fmt::format("  base: {}\n  new:  {}\n", c.base_label, c.new_label);
  for (const std::string& note : c.notes) text += "  note: " + note + "\n";
  text += "\n";
  text +=
      fmt::format("{:<{}}  {:<{}}  {:>{}}  {:>{}}  {:>7}  {:>7}  {}\n", "point", point_width, "figure",
                  figure_width, base_head, value_width, new_head, value_width, "ratio", "spread", "verdict");
  for (const ComparedFigure& f : c.figures) {
    const std::string ratio = f.ratio > 0 ? fmt::format("{:.3f}", f.ratio) : "-";
    const std::string spread = f.ratio > 0 ? fmt::format("{:.1f}%", f.spread * 100.0) : "-";
    text += fmt::format("{:<{}}  {:<{}}  {:>{}}  {:>{}}  {:>7}  {:>7}  {}\n", f.point, point_width, f.figure,
                        figure_width, format_value(f.base), value_width, format_value(f.next), value_width,
                        ratio, spread, to_string(f.verdict));
  }
  text += "\n";
  const int regressions = c.count(Verdict::regression), wrong = c.count(Verdict::wrong);
  if (c.has_regression()) {
    text += fmt::format("verdict: REGRESSION: {} figure(s) worse beyond {:.1f} % and beyond their spread",
                        regressions, c.threshold_pct);
    if (wrong > 0) text += fmt::format(", {} point(s) with wrong results", wrong);
    text += "\n";
  } else {
    text += fmt::format("verdict: no regression ({} same, {} noisy, {} improved, {} unmatched)\n",
                        c.count(Verdict::same), c.count(Verdict::noisy), c.count(Verdict::improved),
                        c.count(Verdict::only_base) + c.count(Verdict::only_new));
  }
  return text;
}

int run_compare(const CompareOptions& options, std::ostream& out) {
  if (!(options.threshold_pct >= 0)) {
    throw UsageError(fmt::format("--threshold must be a percentage >= 0, got {}", options.threshold_pct));
  }
  const RunReport base = read_report_file(options.base_path);
  const RunReport next = read_report_file(options.new_path);
  const Comparison comparison = compare_reports(base, next, options.threshold_pct);
  out << "base file: " << options.base_path << "\nnew file:  " << options.new_path << "\n";
  out << render_comparison(comparison);
  return comparison.has_regression() ? static_cast<int>(ExitCode::measurement_failed)
                                     : static_cast<int>(ExitCode::ok);
}

}  // namespace k25
