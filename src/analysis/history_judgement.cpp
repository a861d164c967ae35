// The history's judgement of one series (history_judgement.hpp).
#include "analysis/history_judgement.hpp"

#include <algorithm>
#include <cmath>

namespace k25 {
namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

bool passed(NightVerdict verdict) {
  return verdict == NightVerdict::ok || verdict == NightVerdict::improved ||
         verdict == NightVerdict::no_baseline;
}

// Beyond the threshold and the spread, or beyond the ratio ceiling: compare's rule (analysis/compare.cpp).
bool beyond(double factor, double threshold, double spread, double max_ratio) {
  if (factor - 1.0 <= threshold) return false;
  return factor - 1.0 > spread || factor > max_ratio;
}

}  // namespace

std::vector<JudgedNight> judge_nights(const std::vector<NightFigure>& series, bool lower_is_better,
                                      const HistoryRules& rules) {
  std::vector<JudgedNight> judged(series.size());
  const std::size_t wanted = static_cast<std::size_t>(std::max(rules.window, 1));
  const std::size_t least = std::min(static_cast<std::size_t>(std::max(rules.min_window, 1)), wanted);
  for (std::size_t i = 0; i < series.size(); ++i) {
    JudgedNight& night = judged[i];
    const NightFigure& figure = series[i];
    if (!figure.judged || !std::isfinite(figure.value)) {
      night.verdict = NightVerdict::not_judged;
      continue;
    }
    std::vector<double> values, spreads;
    for (std::size_t j = i; j-- > 0 && values.size() < wanted;) {
      if (!series[j].judged || !passed(judged[j].verdict)) continue;
      values.push_back(series[j].value);
      if (series[j].spread) spreads.push_back(*series[j].spread);
    }
    night.window_nights = static_cast<int>(values.size());
    const double base = values.empty() ? 0.0 : median(values);
    if (values.size() < least || !(base > 0) || !(figure.value > 0)) {
      night.verdict = NightVerdict::no_baseline;
      continue;
    }
    double spread = spreads.empty() ? 0.0 : median(spreads);
    for (const double value : values) spread = std::max(spread, std::abs(value / base - 1.0));
    night.baseline = base;
    night.ratio = figure.value / base;
    night.window_spread = spread;
    const double worse = lower_is_better ? figure.value / base : base / figure.value;
    const double threshold = rules.threshold_pct / 100.0;
    if (beyond(worse, threshold, spread, rules.max_ratio)) {
      night.in_a_row = i > 0 ? judged[i - 1].in_a_row + 1 : 1;
      night.verdict =
          night.in_a_row >= std::max(rules.persist, 1) ? NightVerdict::regression : NightVerdict::suspicious;
    } else if (beyond(1.0 / worse, threshold, spread, rules.max_ratio)) {
      night.verdict = NightVerdict::improved;
    } else {
      night.verdict = NightVerdict::ok;
    }
  }
  return judged;
}

}  // namespace k25
