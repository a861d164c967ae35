// The nightly history's rule, beside `k25comm compare`'s: each night of one (node, figure) series judged
// against a baseline window of earlier nights that passed. Pure data in, verdicts out.
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "common/enum_names.hpp"

namespace k25 {

struct HistoryRules {
  int window = 7;              // the baseline: this many earlier nights that passed, the latest ones
  int min_window = 3;          // with fewer earlier nights that passed there is no baseline yet
  double threshold_pct = 5.0;  // a change smaller than this is never suspicious (compare's --threshold)
  double max_ratio = 1.5;      // worse by more than this factor counts whatever the window's spread
  int persist = 2;             // suspicious this many nights in a row: a regression
  // Nights of oversubscribed runs are reported, not judged, unless this is set (compare's
  // --judge-oversubscribed).
  bool judge_oversubscribed = false;
  bool operator==(const HistoryRules&) const = default;
};

// ok: within the threshold or the window's spread; improved: better beyond both; suspicious: worse beyond
// both (or beyond max_ratio); regression: suspicious `persist` nights in a row; no_baseline: fewer than
// min_window earlier nights passed; not_judged: the night's run cannot be judged (it failed, had wrong
// results, or was oversubscribed).
enum class NightVerdict { ok, improved, suspicious, regression, no_baseline, not_judged };
template <>
struct EnumNames<NightVerdict> {
  static constexpr std::array<std::pair<NightVerdict, std::string_view>, 6> values{
      {{NightVerdict::ok, "ok"},
       {NightVerdict::improved, "improved"},
       {NightVerdict::suspicious, "suspicious"},
       {NightVerdict::regression, "regression"},
       {NightVerdict::no_baseline, "no baseline"},
       {NightVerdict::not_judged, "not judged"}}};
};

// One night of a series: its figure (a median), the figure's own spread (p90 / p50 - 1) where it has one, and
// whether the night's run can be judged.
struct NightFigure {
  double value = 0;
  std::optional<double> spread;
  bool judged = true;
};

struct JudgedNight {
  NightVerdict verdict = NightVerdict::ok;
  std::optional<double> baseline;  // median of the window's figures
  std::optional<double> ratio;     // value / baseline
  double window_spread = 0;  // the larger of the window's own spread around its median and its nights' spread
  int window_nights = 0;
  int in_a_row = 0;  // suspicious nights in a row, this one included
};

// Judges every night of `series` (oldest first) as it would have been judged that night: the baseline is the
// last `window` earlier nights whose run could be judged and whose verdict was ok, improved or no baseline.
// A night is suspicious when worse than the baseline's median by more than threshold_pct and by more than the
// window's spread (the larger of max |v / median - 1| over the window and the median of its nights' own
// spreads), or by more than max_ratio; a regression when it and the persist - 1 nights before it were all
// suspicious. Worse is higher for `lower_is_better` figures, lower otherwise.
std::vector<JudgedNight> judge_nights(const std::vector<NightFigure>& series, bool lower_is_better,
                                      const HistoryRules& rules);

}  // namespace k25
