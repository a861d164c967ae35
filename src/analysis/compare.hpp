// Run-to-run comparison of two reports (`k25comm compare BASE NEW`): matched points side by side and a
// regression verdict that takes each run's own spread into account.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "analysis/run_report.hpp"

namespace k25 {

struct CompareOptions {
  std::string base_path, new_path;
  double threshold_pct = 5.0;  // a change smaller than this is never a regression
};

// same: within the threshold; noisy: beyond the threshold but within the runs' spread; regression / improved:
// beyond both; wrong: the new run has wrong elements where the base had none; only_base / only_new:
// unmatched.
enum class Verdict { same, noisy, regression, improved, wrong, only_base, only_new };
const char* to_string(Verdict verdict);

// One compared figure: a result's step time p50, a serve level's TPOT p50 or its output tokens/s.
struct ComparedFigure {
  std::string point;   // "allreduce T=16 eager", "serve C=8"
  std::string figure;  // "step p50 us", "TPOT p50 ms", "output tok/s"
  bool lower_is_better = true;
  double base = 0, next = 0;  // 0 on the side where the point is missing
  double ratio = 0;           // next / base
  double spread = 0;          // noise allowance: max over both runs of p90/p50 - 1
  Verdict verdict = Verdict::same;
};

struct Comparison {
  std::string base_label, new_label;  // "pcie, 8 ranks, nccl, node-a"
  std::string model;
  double threshold_pct = 5.0;
  std::vector<ComparedFigure> figures;
  std::vector<std::string> notes;  // differences in the setup the reader should know about
  bool has_regression() const;     // a regression or a wrong verdict
  int count(Verdict verdict) const;
};

// Throws UsageError when the two reports cannot be compared: different schema_version, different models, or
// no point in common.
void check_comparable(const RunReport& base, const RunReport& next);

// Matches results by (phase, tokens, mode) and serve levels by concurrency. For a figure where lower is
// better, ratio = next / base; it is a regression when ratio - 1 exceeds both threshold_pct / 100 and the
// spread, an improvement when base / next - 1 does; noisy when beyond the threshold only. Higher-is-better
// figures mirror this.
Comparison compare_reports(const RunReport& base, const RunReport& next, double threshold_pct);

// Side-by-side table with a summary line, for the console.
std::string render_comparison(const Comparison& comparison);

// Reads both files, compares, prints the table to `out`; returns 1 on a regression, 0 otherwise. Throws
// UsageError (exit 2) on unreadable or incompatible inputs or a negative threshold.
int run_compare(const CompareOptions& options, std::ostream& out);

}  // namespace k25
