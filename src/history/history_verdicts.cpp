// The history's judgement over a store's nights (history_verdicts.hpp).
#include "history/history_verdicts.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/vocabulary.hpp"

namespace k25 {

const char* const kChangePointMethod =
    "E-divisive with means (Matteson and James 2014), Student's t-test significance with Hunter's split and merge "
    "steps (Fleming et al. 2023), as Apache Otava implements them";

namespace {

// Phases in the order of a decode step, serve last.
int phase_rank(const std::string& phase) {
  const auto known = enum_from_name<Phase>(phase);
  return known ? static_cast<int>(*known) : 100;
}

bool figure_order(const FigureKey& a, const FigureKey& b) {
  const int pa = phase_rank(a.phase), pb = phase_rank(b.phase);
  if (pa != pb) return pa < pb;
  return a < b;
}

// A figure to 6 significant digits: the document's figures, half the size of their 17-digit form (a measured
// time has fewer digits that mean anything).
double rounded(double value) {
  if (value == 0 || !std::isfinite(value)) return value;
  const double scale = std::pow(10.0, 5 - static_cast<int>(std::floor(std::log10(std::abs(value)))));
  return std::round(value * scale) / scale;
}

std::optional<double> rounded(const std::optional<double>& value) {
  if (!value) return value;
  return rounded(*value);
}

struct SeriesPoint {
  const HistoryNight* night;
  const FigureRow* figure;
};

}  // namespace

std::string not_judged_reason(const RunRow& run, const HistoryRules& rules) {
  if (!run.complete) return "incomplete";
  if (run.wrong) return "wrong results";
  if (run.oversubscribed && !rules.judge_oversubscribed) return "oversubscribed";
  return "";
}

HistoryDocument judge_history(const std::vector<HistoryNight>& nights, const HistoryOptions& options,
                              const std::function<std::string(const RunRow&)>& report_link) {
  HistoryDocument doc;
  doc.rules = options.rules;
  doc.change_point_rules = options.change_points;
  doc.change_point_method = kChangePointMethod;

  // Each node's nights, oldest first.
  std::map<std::string, std::vector<const HistoryNight*>> by_node;
  for (const HistoryNight& night : nights) by_node[night.run.node].push_back(&night);
  for (auto& [node, list] : by_node) {
    std::stable_sort(list.begin(), list.end(), [](const HistoryNight* a, const HistoryNight* b) {
      return a->run.started_at < b->run.started_at;
    });
    doc.nodes.push_back(node);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const RunRow& run = list[i]->run;
      HistoryRun entry;
      entry.node = node;
      entry.night = run.started_at;
      entry.report = report_link(run);
      entry.topology = run.topology;
      entry.fields = run_fields(run);
      entry.not_judged_reason = not_judged_reason(run, options.rules);
      entry.judged = entry.not_judged_reason.empty();
      doc.runs.push_back(std::move(entry));
      if (i == 0) continue;
      std::vector<FieldChange> changed = changed_fields(list[i - 1]->run, run);
      if (!changed.empty())
        doc.upgrades.push_back({node, run.started_at, list[i - 1]->run.started_at, std::move(changed)});
    }
  }

  // Every judged figure, and each node's series of it.
  std::vector<FigureKey> keys;
  std::map<FigureKey, std::map<std::string, std::vector<SeriesPoint>>> series;
  for (const auto& [node, list] : by_node)
    for (const HistoryNight* night : list)
      for (const FigureRow& figure : night->figures) {
        if (!judged_statistic(figure.key.statistic)) continue;
        auto& points = series[figure.key];
        if (points.empty()) keys.push_back(figure.key);
        points[node].push_back({night, &figure});
      }
  std::sort(keys.begin(), keys.end(), figure_order);

  for (const FigureKey& key : keys) {
    HistoryFigure figure;
    figure.name = figure_name(key);
    figure.key = key;
    figure.lower_is_better = lower_is_better(key.statistic);
    for (const auto& [node, points] : series[key]) {
      figure.unit = points.front().figure->unit;
      std::vector<NightFigure> inputs;
      for (const SeriesPoint& p : points)
        inputs.push_back(
            {p.figure->value, p.figure->spread, not_judged_reason(p.night->run, options.rules).empty()});
      const std::vector<JudgedNight> judged = judge_nights(inputs, figure.lower_is_better, options.rules);
      HistorySeries out{node, {}};
      for (std::size_t i = 0; i < points.size(); ++i) {
        const JudgedNight& j = judged[i];
        const std::string night = points[i].night->run.started_at;
        out.points.push_back({night, rounded(points[i].figure->value), rounded(points[i].figure->spread),
                              to_string(j.verdict), rounded(j.ratio)});
        if (j.verdict == NightVerdict::suspicious || j.verdict == NightVerdict::regression)
          doc.verdicts.push_back({node, figure.name, night, to_string(j.verdict), points[i].figure->value,
                                  j.baseline.value_or(0), j.ratio.value_or(0), j.window_spread,
                                  j.window_nights, j.in_a_row});
      }
      const JudgedNight& last = judged.back();
      doc.latest.push_back({node, figure.name, points.back().night->run.started_at, to_string(last.verdict),
                            points.back().figure->value, last.baseline, last.ratio});

      // Change points over the nights that can be judged.
      std::vector<const SeriesPoint*> usable;
      std::vector<double> values;
      for (std::size_t i = 0; i < points.size(); ++i)
        if (judged[i].verdict != NightVerdict::not_judged) {
          usable.push_back(&points[i]);
          values.push_back(points[i].figure->value);
        }
      for (const ChangePoint& point : find_change_points(values, options.change_points)) {
        const RunRow& before = usable[static_cast<std::size_t>(point.index) - 1]->night->run;
        const RunRow& after = usable[static_cast<std::size_t>(point.index)]->night->run;
        doc.change_points.push_back({node, figure.name, after.started_at, before.started_at, point.pvalue,
                                     point.mean_before, point.mean_after, changed_fields(before, after)});
      }
      figure.series.push_back(std::move(out));
    }
    doc.figures.push_back(std::move(figure));
  }
  return doc;
}

}  // namespace k25
