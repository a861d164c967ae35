// The history's verdict in words (history_summary.hpp).
#include "history/history_summary.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace k25 {

std::string changes_text(const std::vector<FieldChange>& changed) {
  if (changed.empty()) return "nothing recorded changed";
  std::string text;
  for (const FieldChange& c : changed)
    text += fmt::format("{}{} {} -> {}", text.empty() ? "" : ", ", c.field,
                        c.before.empty() ? "(none)" : c.before, c.after.empty() ? "(none)" : c.after);
  return text;
}

std::string history_summary(const HistoryDocument& doc,
                            const std::vector<std::pair<std::string, std::string>>& nights) {
  std::string text;
  for (const auto& asked : nights) {
    const std::string& node = asked.first;  // named, not bound: clang 14's lambdas cannot capture a binding
    const std::string& night = asked.second;
    std::map<std::string, int> counts;
    std::vector<std::string> lines;
    std::string unit_of;
    for (const HistoryFigure& figure : doc.figures)
      for (const HistorySeries& series : figure.series) {
        if (series.node != node) continue;
        for (const HistoryPoint& point : series.points) {
          if (point.night != night) continue;
          ++counts[point.verdict];
          if (point.verdict != "suspicious" && point.verdict != "regression") continue;
          const auto verdict =
              std::find_if(doc.verdicts.begin(), doc.verdicts.end(), [&](const HistoryVerdict& v) {
                return v.node == node && v.night == night && v.figure == figure.name;
              });
          if (verdict == doc.verdicts.end()) continue;
          lines.push_back(fmt::format(
              "history:   {} {}: {:.4g} {}, {:.3f}x the baseline {:.4g} {} (median of {} nights, their spread {:.1f} %){}",
              point.verdict == "regression" ? "REGRESSION" : "suspicious", figure.name, point.value,
              figure.unit, verdict->ratio, verdict->baseline, figure.unit, verdict->window_nights,
              verdict->window_spread * 100,
              point.verdict == "regression" ? fmt::format(", {} nights in a row", verdict->in_a_row) : ""));
        }
      }
    int total = 0;
    for (const auto& [verdict, count] : counts) total += count;
    std::string tally;
    for (const auto& [verdict, plural] :
         {std::pair{"regression", "regressions"}, std::pair{"suspicious", "suspicious"},
          std::pair{"ok", "ok"}, std::pair{"improved", "improved"},
          std::pair{"no baseline", "without a baseline yet"}, std::pair{"not judged", "not judged"}})
      if (counts[verdict] > 0)
        tally += fmt::format("{}{} {}", tally.empty() ? "" : ", ", counts[verdict],
                             counts[verdict] == 1 && verdict == std::string("regression") ? verdict : plural);
    text += fmt::format(
        "history: {} {}: {} ({} figures; baseline the last {} nights that passed, threshold {:g} %, persist {})\n",
        node, night, tally.empty() ? "no judged figure" : tally, total, doc.rules.window,
        doc.rules.threshold_pct, doc.rules.persist);
    for (const std::string& line : lines) text += line + "\n";
    // Change points among the node's last `window` nights up to this one.
    std::vector<std::string> node_nights;
    for (const HistoryRun& run : doc.runs)
      if (run.node == node && run.night <= night) node_nights.push_back(run.night);
    const std::size_t keep = static_cast<std::size_t>(std::max(doc.rules.window, 1));
    const std::string since = node_nights.size() > keep ? node_nights[node_nights.size() - keep] : "";
    for (const HistoryChangePoint& point : doc.change_points)
      if (point.node == node && point.night >= since && point.night <= night)
        text += fmt::format("history:   change point at {} in {}: {:.4g} -> {:.4g} (t-test p {:.2g}); {}\n",
                            point.night, point.figure, point.mean_before, point.mean_after, point.pvalue,
                            changes_text(point.changed));
  }
  return text;
}

}  // namespace k25
