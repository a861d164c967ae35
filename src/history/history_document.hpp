// history.json: what the history page shows, as one typed document: the runs of every node, each judged
// figure's series, every verdict {node, figure, night, verdict} that is suspicious or a regression, every
// change point with the run fields that changed there, the upgrades, and the latest verdict per node and
// figure. Versioned by schema_version.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/change_points.hpp"
#include "analysis/history_judgement.hpp"
#include "history/history_rows.hpp"

namespace k25 {

// 1: runs, figures (series of points), verdicts, change_points, upgrades, latest.
inline constexpr int kHistorySchemaVersion = 1;

// One night of one node.
struct HistoryRun {
  std::string node, night;  // night: the run's start, UTC ISO 8601
  std::string report;       // the night's report.md (else report.json), relative to history.json's folder
  std::string topology;
  std::map<std::string, std::string> fields;  // what it ran with (run_fields() names them)
  bool judged = true;
  std::string not_judged_reason;  // "oversubscribed", "incomplete", "wrong results"
  bool operator==(const HistoryRun&) const = default;
};

struct HistoryPoint {
  std::string night;
  double value = 0;
  std::optional<double> spread;
  std::string verdict;          // NightVerdict's name
  std::optional<double> ratio;  // value / the baseline's median, where the night had a baseline
  bool operator==(const HistoryPoint&) const = default;
};

struct HistorySeries {
  std::string node;
  std::vector<HistoryPoint> points;  // oldest first
  bool operator==(const HistorySeries&) const = default;
};

struct HistoryFigure {
  std::string name;  // figure_name(): "allreduce T=16 eager nccl burst"
  FigureKey key;     // written as its fields: phase, tokens, concurrency, mode, backend, statistic
  std::string unit;
  bool lower_is_better = true;
  std::vector<HistorySeries> series;  // one per node that measured it
  bool operator==(const HistoryFigure&) const = default;
};

// A night judged suspicious or a regression.
struct HistoryVerdict {
  std::string node, figure, night, verdict;
  double value = 0, baseline = 0, ratio = 0, window_spread = 0;
  int window_nights = 0, in_a_row = 0;
  bool operator==(const HistoryVerdict&) const = default;
};

struct HistoryChangePoint {
  std::string node, figure, night, previous_night;
  double pvalue = 1, mean_before = 0, mean_after = 0;
  std::vector<FieldChange> changed;  // between previous_night and night; empty where nothing recorded changed
  bool operator==(const HistoryChangePoint&) const = default;
};

// A night whose run fields differ from the node's night before (an NCCL, driver or k25comm upgrade, a
// config).
struct HistoryUpgrade {
  std::string node, night, previous_night;
  std::vector<FieldChange> changed;
  bool operator==(const HistoryUpgrade&) const = default;
};

struct LatestVerdict {
  std::string node, figure, night, verdict;
  double value = 0;
  std::optional<double> baseline, ratio;
  bool operator==(const LatestVerdict&) const = default;
};

struct HistoryDocument {
  int schema_version = kHistorySchemaVersion;
  std::string tool_version, git_sha, generated_at;
  HistoryRules rules;
  ChangePointRules change_point_rules;
  std::string change_point_method;
  std::vector<std::string> nodes;
  std::vector<HistoryRun> runs;  // by node, then night
  std::vector<HistoryFigure> figures;
  std::vector<HistoryVerdict> verdicts;
  std::vector<HistoryChangePoint> change_points;
  std::vector<HistoryUpgrade> upgrades;
  std::vector<LatestVerdict> latest;  // per node and figure, its latest night
  bool operator==(const HistoryDocument&) const = default;
};

void to_json(nlohmann::json& j, const HistoryDocument& d);
// Throws UsageError (through read_history_document) on a missing or unsupported schema_version; nlohmann's
// exceptions on wrong types.
void from_json(const nlohmann::json& j, HistoryDocument& d);

// history.json's text, read back: throws UsageError naming `source` when it is not JSON, not a history
// document, of another schema_version, or malformed.
HistoryDocument read_history_document(const std::string& text, const std::string& source);

}  // namespace k25
