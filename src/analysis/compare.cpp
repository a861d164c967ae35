// Matching, setup checks, verdicts and the renderings (table, CSV, JSON) of `k25comm compare`.
#include "analysis/compare.hpp"

#include <algorithm>
#include <map>
#include <ostream>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "analysis/report_identity.hpp"
#include "analysis/report_reader.hpp"
#include "common/column_table.hpp"
#include "common/count_noun.hpp"
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
      return "MISSING in new";
    case Verdict::only_new:
      return "MISSING in base";
    case Verdict::not_judged:
      return "not judged (oversubscribed)";
  }
  return "?";
}

bool Comparison::failed() const {
  const int missing = count(Verdict::only_base) + count(Verdict::only_new);
  return count(Verdict::regression) > 0 || count(Verdict::wrong) > 0 || (missing > 0 && !rules.allow_missing);
}

int Comparison::count(Verdict verdict) const {
  return static_cast<int>(std::count_if(figures.begin(), figures.end(),
                                        [verdict](const ComparedFigure& f) { return f.verdict == verdict; }));
}

namespace {

// The effective config's value at section.key ("sweep.in_place"), or null when the report does not say.
nlohmann::json config_value(const RunReport& report, const char* section, const char* key) {
  const nlohmann::json& config = report.run.config;
  if (!config.is_object() || !config.contains(section) || !config[section].is_object()) return nullptr;
  return config[section].value(key, nlohmann::json());
}

// A boolean of the effective config, "true"/"false", or "" when the report does not say.
std::string config_flag(const RunReport& report, const char* section, const char* key) {
  const nlohmann::json value = config_value(report, section, key);
  return value.is_boolean() ? (value.get<bool>() ? "true" : "false") : "";
}

// A string of the effective config ("transport.nccl_register"), or `absent` when the report does not say.
std::string config_text(const RunReport& report, const char* section, const char* key, const char* absent) {
  const nlohmann::json value = config_value(report, section, key);
  return value.is_string() ? value.get<std::string>() : absent;
}

}  // namespace

const std::vector<SetupField>& setup_fields() {
  static const std::vector<SetupField> kFields = {
      {"dtype", [](const RunReport&, const PhaseResult& r) { return std::string(to_string(r.dtype)); }, {}},
      {"kind", [](const RunReport&, const PhaseResult& r) { return std::string(to_string(r.kind())); }, {}},
      {"ranks",
       [](const RunReport& report, const PhaseResult& r) {
         const int ranks = r.ranks > 0 ? r.ranks : report.run.ranks;
         return ranks > 0 ? std::to_string(ranks) : std::string();
       },
       {}},
      {"transport", [](const RunReport& report, const PhaseResult&) { return report.run.transport; }, {}},
      {"in_place",
       [](const RunReport& report, const PhaseResult& r) {
         return !r.per_rank_bytes() ? config_flag(report, "sweep", "in_place") : std::string();
       },
       {}},
      // NCCL user-buffer registration; reports from before --nccl-register registered nothing.
      {"nccl_register",
       [](const RunReport& report, const PhaseResult&) {
         return config_text(report, "transport", "nccl_register", "none");
       },
       {}},
      // The tokens measured for the tokens asked: graph mode pads to the capture sizes of each run.
      {"padded_tokens",
       [](const RunReport&, const PhaseResult& r) {
         return r.mode == TimingMode::graph ? std::to_string(r.tokens) : std::string();
       },
       {}},
      {"bytes",
       [](const RunReport&, const PhaseResult& r) {
         return !r.per_rank_bytes() ? std::to_string(r.bytes_per_op)
                                    : fmt::format("{:.6g}", r.bytes_per_rank_mean);
       },
       {}},
      {"ops_per_step",
       [](const RunReport&, const PhaseResult& r) { return std::to_string(r.ops_per_step); },
       {}},
      {"include_permute",
       [](const RunReport& report, const PhaseResult& r) {
         return !r.per_rank_bytes() ? std::string() : config_flag(report, "sweep", "include_permute");
       },
       {}},
      {"device_only",
       [](const RunReport&, const PhaseResult& r) { return std::string(r.device_only ? "true" : "false"); },
       {}},
      {"api", {}, [](const RunReport& report) { return report.serve.api; }},
      {"max_tokens",
       {},
       [](const RunReport& report) {
         return report.serve.max_tokens > 0 ? std::to_string(report.serve.max_tokens) : std::string();
       }},
      {"prompt_tokens",
       {},
       [](const RunReport& report) {
         return report.serve.prompt_tokens > 0 ? std::to_string(report.serve.prompt_tokens) : std::string();
       }},
      {"request_rate",
       {},
       [](const RunReport& report) { return fmt::format("{:g}", report.serve.request_rate); }},
      {"ignore_eos",
       {},
       [](const RunReport& report) { return std::string(report.serve.ignore_eos ? "true" : "false"); }},
  };
  return kFields;
}

namespace {

// Phase or kind, requested tokens, mode, and the AllReduce backend: empty for the transport's own collective
// (so that runs on two transports still match and their `transport` field is compared), else its name.
using ResultKey = std::tuple<std::string, int, std::string, std::string>;

ResultKey key_of(const RunReport& report, const PhaseResult& r) {
  const std::string backend = r.backend == report.run.transport ? std::string() : r.backend;
  return {to_string(r.phase), r.requested_tokens, to_string(r.mode), backend};
}

std::string point_name(const ResultKey& key) {
  const std::string& backend = std::get<3>(key);
  return fmt::format("{} T={} {}{}", std::get<0>(key), std::get<1>(key), std::get<2>(key),
                     backend.empty() ? "" : " [" + backend + "]");
}

// p90/p50 - 1 of a distribution; 0 when p50 is not positive or there is none.
double relative_spread(const std::optional<Stats>& s) {
  return s && s->p50 > 0 ? std::max(s->p90 / s->p50 - 1.0, 0.0) : 0.0;
}

// Verdict of a figure measured on both sides (both positive).
void judge(ComparedFigure& f, double threshold, double max_ratio) {
  const double worse = f.lower_is_better ? *f.next / *f.base : *f.base / *f.next;  // > 1: worse
  const double better = 1.0 / worse;
  const auto beyond = [&](double factor) {
    if (factor - 1.0 <= threshold) return false;
    if (factor - 1.0 > f.spread) return true;
    f.beyond_max_ratio = factor > max_ratio;
    return f.beyond_max_ratio;
  };
  if (beyond(worse)) {
    f.verdict = Verdict::regression;
  } else if (beyond(better)) {
    f.verdict = Verdict::improved;
  } else if (worse - 1.0 > threshold || better - 1.0 > threshold) {
    f.verdict = Verdict::noisy;
  } else {
    f.verdict = Verdict::same;
  }
}

std::optional<double> positive(double value) {
  return value > 0 ? std::optional<double>(value) : std::nullopt;
}

ComparedFigure both_sides(std::string point, std::string figure, bool lower_is_better,
                          std::optional<double> base, std::optional<double> next, double spread,
                          const CompareRules& rules) {
  ComparedFigure f;
  f.point = std::move(point);
  f.figure = std::move(figure);
  f.lower_is_better = lower_is_better;
  f.base = base;
  f.next = next;
  f.spread = spread;
  if (base && next) {
    f.ratio = *next / *base;
    judge(f, rules.threshold_pct / 100.0, rules.max_ratio);
  } else if (base || next) {
    // Measured at the point on one side only (e.g. nothing completed): the side without a figure is the
    // worse.
    f.verdict = next ? Verdict::improved : Verdict::regression;
  }
  return f;
}

ComparedFigure one_side(std::string point, std::string figure, std::optional<double> value, bool in_base) {
  ComparedFigure f;
  f.point = std::move(point);
  f.figure = std::move(figure);
  (in_base ? f.base : f.next) = value;
  f.verdict = in_base ? Verdict::only_base : Verdict::only_new;
  return f;
}

// Every measured row: the transport's own and every other backend's (rows a backend did not run are left out:
// on one side only they are a missing point).
std::map<ResultKey, const PhaseResult*> index_results(const RunReport& report) {
  std::map<ResultKey, const PhaseResult*> index;
  for (const auto* results : {&report.results, &report.backend_results})
    for (const PhaseResult& r : *results)
      if (r.ran()) index[key_of(report, r)] = &r;
  return index;
}

// Why `report`'s backend did not run the point `key` (a row with not_run), empty where no such row.
std::string not_run_reason(const RunReport& report, const ResultKey& key) {
  for (const auto* results : {&report.results, &report.backend_results})
    for (const PhaseResult& r : *results)
      if (!r.ran() && key_of(report, r) == key) return r.not_run;
  return {};
}

std::map<int, const ServeLevel*> index_levels(const RunReport& report) {
  std::map<int, const ServeLevel*> index;
  for (const ServeLevel& l : report.serve.levels) index[l.concurrency] = &l;
  return index;
}

// Adds a difference of `field` at `point`, one entry per field.
void record_mismatch(std::vector<SetupMismatch>& mismatches, const std::string& field,
                     const std::string& base, const std::string& next, const std::string& point) {
  auto it = std::find_if(mismatches.begin(), mismatches.end(),
                         [&](const SetupMismatch& m) { return m.field == field; });
  if (it == mismatches.end()) {
    mismatches.push_back({field, base, next, {}});
    it = mismatches.end() - 1;
  }
  it->points.push_back(point);
}

// Setup fields that differ on points both reports measured.
std::vector<SetupMismatch> find_mismatches(const RunReport& base, const RunReport& next) {
  std::vector<SetupMismatch> mismatches;
  const auto base_results = index_results(base), new_results = index_results(next);
  for (const auto& [key, b] : base_results) {
    const auto n = new_results.find(key);
    if (n == new_results.end()) continue;
    for (const SetupField& field : setup_fields()) {
      if (!field.of_result) continue;
      const std::string bv = field.of_result(base, *b), nv = field.of_result(next, *n->second);
      if (!bv.empty() && !nv.empty() && bv != nv)
        record_mismatch(mismatches, field.name, bv, nv, point_name(key));
    }
  }
  const auto base_levels = index_levels(base), new_levels = index_levels(next);
  for (const auto& [concurrency, unused] : base_levels) {
    if (!new_levels.count(concurrency)) continue;
    for (const SetupField& field : setup_fields()) {
      if (!field.of_serve) continue;
      const std::string bv = field.of_serve(base), nv = field.of_serve(next);
      if (!bv.empty() && !nv.empty() && bv != nv)
        record_mismatch(mismatches, field.name, bv, nv, fmt::format("serve C={}", concurrency));
    }
  }
  return mismatches;
}

std::string point_list(const std::vector<std::string>& points) {
  constexpr std::size_t kShown = 4;
  std::string list;
  for (std::size_t i = 0; i < points.size() && i < kShown; ++i) list += (i ? ", " : "") + points[i];
  if (points.size() > kShown) list += fmt::format(" and {} more", points.size() - kShown);
  return list;
}

std::string describe(const SetupMismatch& m) {
  return fmt::format("{} differs (base {}, new {}) at {} point{}: {}", m.field, m.base_value, m.new_value,
                     m.points.size(), m.points.size() == 1 ? "" : "s", point_list(m.points));
}

bool shares_a_point(const RunReport& base, const RunReport& next) {
  const auto base_results = index_results(base);
  for (const auto& [key, unused] : index_results(next))
    if (base_results.count(key)) return true;
  const auto base_levels = index_levels(base);
  for (const ServeLevel& l : next.serve.levels)
    if (base_levels.count(l.concurrency)) return true;
  return false;
}

void check_rules(const CompareRules& rules) {
  if (!(rules.threshold_pct >= 0))
    throw UsageError(fmt::format("--threshold must be a percentage >= 0, got {}", rules.threshold_pct));
  if (!(rules.max_ratio > 1))
    throw UsageError(fmt::format("--max-ratio must be above 1, got {}", rules.max_ratio));
  for (const std::string& name : rules.allow_mismatch) {
    const auto& fields = setup_fields();
    if (std::none_of(fields.begin(), fields.end(), [&](const SetupField& f) { return f.name == name; })) {
      std::string known;
      for (const SetupField& f : fields) known += (known.empty() ? "" : ", ") + f.name;
      throw UsageError(fmt::format("--allow-mismatch: unknown field '{}' (fields: {})", name, known));
    }
  }
}

// Timings of an oversubscribed run: a figure measured on both sides is reported, not judged (the verdicts
// about results, wrong and missing, stay).
void leave_timings_unjudged(std::vector<ComparedFigure>& figures) {
  for (ComparedFigure& f : figures) {
    const bool timing =
        f.verdict == Verdict::regression || f.verdict == Verdict::improved || f.verdict == Verdict::noisy;
    if (timing && f.ratio) {
      f.verdict = Verdict::not_judged;
      f.beyond_max_ratio = false;
    }
  }
}

}  // namespace

Comparison compare_reports(const RunReport& base, const RunReport& next, const CompareRules& rules) {
  check_rules(rules);
  const std::string base_model = report_model_name(base), new_model = report_model_name(next);
  if (!base_model.empty() && !new_model.empty() && base_model != new_model) {
    throw UsageError(
        fmt::format("cannot compare: the base measured model '{}', the new run '{}'", base_model, new_model));
  }
  if (!shares_a_point(base, next)) {
    throw UsageError(
        "cannot compare: the two reports have no (phase, tokens, mode) point and no serve concurrency in common");
  }
  Comparison c;
  c.rules = rules;
  std::string refused, refused_fields;
  for (SetupMismatch& mismatch : find_mismatches(base, next)) {
    const bool allowed =
        std::count(rules.allow_mismatch.begin(), rules.allow_mismatch.end(), mismatch.field) > 0;
    if (allowed) {
      c.allowed_mismatches.push_back(std::move(mismatch));
      continue;
    }
    refused += "\n  " + describe(mismatch);
    refused_fields += (refused_fields.empty() ? "" : ",") + mismatch.field;
  }
  if (!refused.empty())
    throw UsageError(fmt::format(
        "not comparable: the runs differ in what they measured:{}\n(--allow-mismatch {} compares them anyway)",
        refused, refused_fields));

  c.base_label = report_label(base);
  c.new_label = report_label(next);
  c.model = new_model.empty() ? base_model : new_model;
  for (const SetupMismatch& m : c.allowed_mismatches) c.notes.push_back("allowed: " + describe(m));
  if (base.topology.kind != next.topology.kind) {
    c.notes.push_back(
        fmt::format("topologies differ: {} (base) vs {} (new)", base.topology.kind, next.topology.kind));
  }
  if (!base.run.complete) c.notes.push_back("the base run is incomplete: " + base.run.incomplete_reason);
  if (!next.run.complete) c.notes.push_back("the new run is incomplete: " + next.run.incomplete_reason);
  bool oversubscribed = false;
  for (const auto& [side, report] : {std::pair{"base", &base}, std::pair{"new", &next}})
    for (const OversubscribedHost& host : oversubscribed_hosts(report->run)) {
      oversubscribed = true;
      c.notes.push_back(fmt::format(
          "the {} run was oversubscribed ({} ran {} on {}): its times include the scheduler's time slicing, so a difference may be the scheduler's, not a regression",
          side, host.host, count_noun(host.ranks, "rank"), count_noun(host.cores, "core")));
    }
  if (oversubscribed && !rules.judge_oversubscribed)
    c.notes.push_back(
        "timings are reported, not judged: no figure of an oversubscribed run is a regression or an improvement; wrong results and missing points still fail (--judge-oversubscribed judges them anyway)");

  const auto base_results = index_results(base);
  const auto new_results = index_results(next);
  std::map<ResultKey, bool> keys;
  for (const auto& [key, r] : base_results) keys[key] = true;
  for (const auto& [key, r] : new_results) keys[key] = true;
  for (const auto& [key, unused] : keys) {
    const auto b = base_results.find(key);
    const auto n = new_results.find(key);
    if (b == base_results.end() || n == new_results.end()) {
      const bool in_base = n == new_results.end();
      const PhaseResult& only = in_base ? *b->second : *n->second;
      c.figures.push_back(one_side(point_name(key), "step p50 us", only.step_us.p50, in_base));
      c.figures.back().not_run = not_run_reason(in_base ? next : base, key);
      continue;
    }
    const PhaseResult& br = *b->second;
    const PhaseResult& nr = *n->second;
    ComparedFigure f =
        both_sides(point_name(key), "step p50 us", true, positive(br.step_us.p50), positive(nr.step_us.p50),
                   std::max(relative_spread(br.step_us), relative_spread(nr.step_us)), rules);
    if (nr.wrong > 0 && br.wrong == 0) f.verdict = Verdict::wrong;
    c.figures.push_back(std::move(f));
  }

  const auto base_levels = index_levels(base);
  const auto new_levels = index_levels(next);
  std::map<int, bool> levels;
  for (const auto& [conc, l] : base_levels) levels[conc] = true;
  for (const auto& [conc, l] : new_levels) levels[conc] = true;
  const auto tpot = [](const ServeLevel& l) {
    return l.completed > 0 && l.tpot_ms ? positive(l.tpot_ms->p50) : std::nullopt;
  };
  for (const auto& [concurrency, unused] : levels) {
    const std::string point = fmt::format("serve C={}", concurrency);
    const auto b = base_levels.find(concurrency);
    const auto n = new_levels.find(concurrency);
    if (b == base_levels.end() || n == new_levels.end()) {
      const bool in_base = n == new_levels.end();
      c.figures.push_back(one_side(point, "TPOT p50 ms", tpot(in_base ? *b->second : *n->second), in_base));
      continue;
    }
    const ServeLevel& bl = *b->second;
    const ServeLevel& nl = *n->second;
    const double spread = std::max(relative_spread(bl.tpot_ms), relative_spread(nl.tpot_ms));
    c.figures.push_back(both_sides(point, "TPOT p50 ms", true, tpot(bl), tpot(nl), spread, rules));
    c.figures.push_back(both_sides(point, "steady output tok/s", false, positive(bl.output_tokens_per_s),
                                   positive(nl.output_tokens_per_s), spread, rules));
  }
  if (oversubscribed && !rules.judge_oversubscribed) leave_timings_unjudged(c.figures);
  return c;
}

namespace {

std::string format_value(const std::optional<double>& value) {
  if (!value) return "-";
  if (*value >= 1000) return fmt::format("{:.0f}", *value);
  if (*value >= 100) return fmt::format("{:.1f}", *value);
  if (*value >= 10) return fmt::format("{:.2f}", *value);
  return fmt::format("{:.3f}", *value);
}

std::string first_word(const std::string& label) {
  return label.substr(0, label.find(','));
}

std::string verdict_text(const ComparedFigure& f, const CompareRules& rules) {
  std::string text = to_string(f.verdict);
  if (f.beyond_max_ratio) text += fmt::format(" (beyond {:g}x)", rules.max_ratio);
  return text;
}

// The comparison table: one column list for the console, CSV and JSON ("figures"); `base_head` and
// `new_head` head the value columns on the console.
Columns<ComparedFigure> figure_columns(const Comparison& c, const std::string& base_head,
                                       const std::string& new_head) {
  using F = const ComparedFigure&;
  const auto value = [](const std::optional<double>& v) { return TableCell::figure(v, format_value(v)); };
  return {
      {"point", "", [](F f) { return TableCell(f.point); }, kEveryOutput, 5, Align::left},
      {"figure", "", [](F f) { return TableCell(f.figure); }, kEveryOutput, 6, Align::left},
      {base_head, "", [=](F f) { return value(f.base); }, kEveryOutput, 12, Align::right, "base"},
      {new_head, "", [=](F f) { return value(f.next); }, kEveryOutput, 12, Align::right, "new"},
      {"ratio", "",
       [](F f) { return TableCell::figure(f.ratio, f.ratio ? fmt::format("{:.3f}", *f.ratio) : "-"); },
       kEveryOutput, 7},
      {"spread", "",
       [](F f) {
         return TableCell::figure(f.ratio ? std::optional<double>(f.spread) : std::nullopt,
                                  f.ratio ? fmt::format("{:.1f}%", f.spread * 100.0) : "-");
       },
       kEveryOutput, 7},
      {"verdict", "", [&c](F f) { return TableCell(verdict_text(f, c.rules)); }, kEveryOutput, 0,
       Align::left},
      {"lower_is_better", "", [](F f) { return TableCell::with_data("", f.lower_is_better); }, kDataOutput},
      {"not_run", "", [](F f) { return TableCell(f.not_run); }, kDataOutput},
  };
}

std::vector<nlohmann::json> figure_records(const Comparison& c) {
  return table_records(figure_columns(c, "base", "new"), row_pointers(c.figures));
}

}  // namespace

std::string render_comparison(const Comparison& c) {
  std::string text;
  text += fmt::format(
      "k25comm compare{}: threshold {:.1f} %, noise allowance p90/p50 of each run, ceiling {:g}x\n",
      c.model.empty() ? "" : " of " + c.model, c.rules.threshold_pct, c.rules.max_ratio);
  text += fmt::format("  base: {}\n  new:  {}\n", c.base_label, c.new_label);
  for (const std::string& note : c.notes) text += "  note: " + note + "\n";
  text += "\n";
  text += console_table(
      figure_columns(c, "base (" + first_word(c.base_label) + ")", "new (" + first_word(c.new_label) + ")"),
      row_pointers(c.figures), ConsoleStyle{"", "", "  "});
  text += "\n";
  const int regressions = c.count(Verdict::regression), wrong = c.count(Verdict::wrong);
  const int missing_new = c.count(Verdict::only_base), missing_base = c.count(Verdict::only_new);
  std::vector<std::string> missing;
  for (const ComparedFigure& f : c.figures)
    if (f.verdict == Verdict::only_base || f.verdict == Verdict::only_new)
      missing.push_back(f.point + (f.verdict == Verdict::only_base ? " (base only" : " (new only") +
                        (f.not_run.empty()
                             ? ")"
                             : fmt::format("; the {} run's backend did not run it: {})",
                                           f.verdict == Verdict::only_base ? "new" : "base", f.not_run)));
  if (!missing.empty()) {
    text += fmt::format("missing points: {}{}\n", fmt::join(missing, ", "),
                        c.rules.allow_missing ? " (allowed by --allow-missing)" : "");
  }
  if (c.failed()) {
    std::vector<std::string> reasons;
    if (regressions > 0)
      reasons.push_back(fmt::format("{} figure(s) worse beyond {:.1f} % and beyond their spread or {:g}x",
                                    regressions, c.rules.threshold_pct, c.rules.max_ratio));
    if (wrong > 0) reasons.push_back(fmt::format("{} point(s) with wrong results", wrong));
    if (!c.rules.allow_missing && missing_new + missing_base > 0)
      reasons.push_back(fmt::format("{} point(s) missing in the new run, {} missing in the base", missing_new,
                                    missing_base));
    text += fmt::format("verdict: {}: {}\n", regressions > 0 || wrong > 0 ? "REGRESSION" : "FAILED",
                        fmt::join(reasons, "; "));
  } else {
    const int unjudged = c.count(Verdict::not_judged);
    text += fmt::format("verdict: no regression ({} same, {} noisy, {} improved, {} unmatched{})\n",
                        c.count(Verdict::same), c.count(Verdict::noisy), c.count(Verdict::improved),
                        missing_new + missing_base,
                        unjudged > 0 ? fmt::format(", {} not judged: oversubscribed", unjudged) : "");
  }
  return text;
}

std::string comparison_csv(const Comparison& c) {
  return csv_table(figure_columns(c, "base", "new"), row_pointers(c.figures));
}

nlohmann::json comparison_json(const Comparison& c) {
  nlohmann::json counts = nlohmann::json::object();
  for (Verdict v : {Verdict::same, Verdict::noisy, Verdict::regression, Verdict::improved, Verdict::wrong,
                    Verdict::only_base, Verdict::only_new, Verdict::not_judged})
    counts[to_string(v)] = c.count(v);
  nlohmann::json allowed = nlohmann::json::array();
  for (const SetupMismatch& m : c.allowed_mismatches)
    allowed.push_back(
        {{"field", m.field}, {"base", m.base_value}, {"new", m.new_value}, {"points", m.points}});
  return {{"model", c.model},
          {"base_label", c.base_label},
          {"new_label", c.new_label},
          {"threshold_pct", c.rules.threshold_pct},
          {"max_ratio", c.rules.max_ratio},
          {"allow_missing", c.rules.allow_missing},
          {"judge_oversubscribed", c.rules.judge_oversubscribed},
          {"allowed_mismatches", allowed},
          {"notes", c.notes},
          {"figures", figure_records(c)},
          {"counts", counts},
          {"failed", c.failed()}};
}

int run_compare(const CompareOptions& options, std::ostream& out) {
  check_rules(options.rules);
  const RunReport base = read_report_file(options.base_path);
  const RunReport next = read_report_file(options.new_path);
  const Comparison comparison = compare_reports(base, next, options.rules);
  if (options.format == CompareFormat::csv) {
    out << comparison_csv(comparison);
  } else if (options.format == CompareFormat::json) {
    nlohmann::json document = comparison_json(comparison);
    document["base_file"] = options.base_path;
    document["new_file"] = options.new_path;
    out << document.dump(2) << "\n";
  } else {
    out << "base file: " << options.base_path << "\nnew file:  " << options.new_path << "\n";
    out << render_comparison(comparison);
  }
  return comparison.failed() ? static_cast<int>(ExitCode::measurement_failed)
                             : static_cast<int>(ExitCode::ok);
}

}  // namespace k25
