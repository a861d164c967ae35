// Run-to-run comparison of two reports (`k25comm compare BASE NEW`): points matched with every setup field
// that changes their figure, side by side, and a verdict that takes each run's own spread into account but
// has a ceiling.
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_report.hpp"
#include "common/enum_names.hpp"

namespace k25 {

// How strict the comparison is.
struct CompareRules {
  double threshold_pct = 5.0;  // a change smaller than this is never a regression
  double max_ratio = 1.5;  // a figure worse (or better) by more than this factor counts whatever the spread
  std::vector<std::string> allow_mismatch;  // setup fields (SetupField::name) allowed to differ
  bool allow_missing = false;               // points on one side only are listed but do not fail
  // Timings of an oversubscribed run (more ranks than cores on a host: the scheduler's time slicing) are
  // reported, not judged, unless this is set (`--judge-oversubscribed`; tools/nightly's
  // `--fail-oversubscribed`).
  bool judge_oversubscribed = false;
};

// How `k25comm compare` prints: the side-by-side table, CSV or JSON.
enum class CompareFormat { text, csv, json };
template <>
struct EnumNames<CompareFormat> {
  static constexpr std::array<std::pair<CompareFormat, std::string_view>, 3> values{
      {{CompareFormat::text, "text"}, {CompareFormat::csv, "csv"}, {CompareFormat::json, "json"}}};
};

// `k25comm compare BASE NEW` as the command line gives it.
struct CompareOptions {
  std::string base_path, new_path;
  CompareRules rules;
  CompareFormat format = CompareFormat::text;
};

// A field besides the point itself (phase or kind, tokens, mode; serve: concurrency) that changes a figure:
// two points are compared only when they agree on every such field. Adding a field (e.g. buffer registration)
// is one entry in setup_fields(). A value of "" means unknown (an older report) and is not compared.
struct SetupField {
  std::string name;  // as --allow-mismatch names it
  // The value for one result; "" where the field does not apply to it (e.g. in_place for All-to-All).
  std::function<std::string(const RunReport&, const PhaseResult&)> of_result;
  // The value for the report's serve levels; empty function where the field does not apply to serving.
  std::function<std::string(const RunReport&)> of_serve;
};
const std::vector<SetupField>& setup_fields();

// A setup field that differs between the two runs, with the points where it does.
struct SetupMismatch {
  std::string field;
  std::string base_value, new_value;  // at the first point listed
  std::vector<std::string> points;
};

// same: within the threshold; noisy: beyond the threshold but within the runs' spread and the ratio ceiling;
// regression / improved: beyond the threshold and beyond the spread or the ceiling; wrong: the new run has
// wrong elements where the base had none; only_base / only_new: the point was measured on one side only;
// not_judged: a timing measured on both sides of a comparison with an oversubscribed run, which is reported
// but neither a regression nor an improvement (CompareRules::judge_oversubscribed).
enum class Verdict { same, noisy, regression, improved, wrong, only_base, only_new, not_judged };
const char* to_string(Verdict verdict);

// One compared figure: a result's step time p50, a serve level's TPOT p50 or its output tokens/s over its
// steady window.
struct ComparedFigure {
  std::string point;   // "allreduce T=16 eager", "serve C=8"
  std::string figure;  // "step p50 us", "TPOT p50 ms", "steady output tok/s"
  bool lower_is_better = true;
  std::optional<double> base, next;  // none on the side where the point or the figure is missing
  std::optional<double> ratio;       // next / base, where both sides have a positive figure
  double spread = 0;                 // noise allowance: max over both runs of p90/p50 - 1
  bool beyond_max_ratio = false;     // the ratio alone (not the spread) decided the verdict
  Verdict verdict = Verdict::same;
  // Where the point is on one side only because the other side's backend did not run it there
  // (PhaseResult::not_run): why; empty otherwise.
  std::string not_run;
};

struct Comparison {
  std::string base_label, new_label;  // "pcie, 8 ranks, nccl, node-a"
  std::string model;
  CompareRules rules;
  std::vector<ComparedFigure> figures;
  std::vector<SetupMismatch> allowed_mismatches;  // differences the user allowed (--allow-mismatch)
  std::vector<std::string> notes;  // other differences in the setup the reader should know about
  // A regression, wrong results, or (unless rules.allow_missing) a point missing on one side.
  bool failed() const;
  int count(Verdict verdict) const;
};

// Matches results by (phase, tokens asked, mode, AllReduce backend: a report without backends reads as the
// transport's own) and serve levels by concurrency. Throws UsageError (exit 2)
// when the reports are not comparable: different models, no point in common, a setup field that differs on
// matched points and is not allowed (the message names the fields, values and points), or an unknown field in
// rules.allow_mismatch. For a figure where lower is better, ratio = next / base; it is a regression when
// ratio - 1 exceeds threshold_pct / 100 and either the spread or max_ratio - 1, an improvement when
// base / next - 1 does; noisy when beyond the threshold only. Higher-is-better figures mirror this. Where
// either run was oversubscribed and rules.judge_oversubscribed is not set, every figure measured on both
// sides is not_judged instead: wrong results and missing points still fail (the one rule of `k25comm
// compare` and tools/nightly).
Comparison compare_reports(const RunReport& base, const RunReport& next, const CompareRules& rules);

// Side-by-side table with a summary line, for the console.
std::string render_comparison(const Comparison& comparison);
// The same figures as CSV (one row per figure) or as a JSON document with the verdict.
std::string comparison_csv(const Comparison& comparison);
nlohmann::json comparison_json(const Comparison& comparison);

// Reads both files, compares, prints in options.format to `out`; returns 1 when the comparison failed, 0
// otherwise. Throws UsageError (exit 2) on unreadable or not comparable inputs or bad options.
int run_compare(const CompareOptions& options, std::ostream& out);

}  // namespace k25
