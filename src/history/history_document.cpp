// history.json's typed form (history_document.hpp).
#include "history/history_document.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/json_list.hpp"
#include "common/optional_json.hpp"

namespace k25 {

using nlohmann::json;

namespace {

template <typename T>
void read_if(const json& j, const char* key, T& value) {
  const auto member = j.find(key);
  if (member != j.end() && !member->is_null()) member->get_to(value);
}

}  // namespace

void to_json(json& j, const FieldChange& c) {
  j = {{"field", c.field}, {"before", c.before}, {"after", c.after}};
}
void from_json(const json& j, FieldChange& c) {
  j.at("field").get_to(c.field);
  read_if(j, "before", c.before);
  read_if(j, "after", c.after);
}

void to_json(json& j, const HistoryRun& r) {
  j = {{"node", r.node},
       {"night", r.night},
       {"report", r.report},
       {"topology", r.topology},
       {"fields", r.fields},
       {"judged", r.judged},
       {"not_judged_reason", r.not_judged_reason}};
}
void from_json(const json& j, HistoryRun& r) {
  j.at("node").get_to(r.node);
  j.at("night").get_to(r.night);
  read_if(j, "report", r.report);
  read_if(j, "topology", r.topology);
  read_if(j, "fields", r.fields);
  read_if(j, "judged", r.judged);
  read_if(j, "not_judged_reason", r.not_judged_reason);
}

void to_json(json& j, const HistoryPoint& p) {
  j = {{"night", p.night},
       {"value", p.value},
       {"spread", optional_json(p.spread)},
       {"verdict", p.verdict},
       {"ratio", optional_json(p.ratio)}};
}
void from_json(const json& j, HistoryPoint& p) {
  j.at("night").get_to(p.night);
  j.at("value").get_to(p.value);
  p.spread = optional_json_at<double>(j, "spread");
  read_if(j, "verdict", p.verdict);
  p.ratio = optional_json_at<double>(j, "ratio");
}

void to_json(json& j, const HistorySeries& s) {
  j = {{"node", s.node}, {"points", s.points}};
}
void from_json(const json& j, HistorySeries& s) {
  j.at("node").get_to(s.node);
  s.points = json_list_or_empty<HistoryPoint>(j, "points");
}

void to_json(json& j, const HistoryFigure& f) {
  j = {{"name", f.name},
       {"phase", f.key.phase},
       {"tokens", f.key.tokens},
       {"concurrency", f.key.concurrency},
       {"mode", f.key.mode},
       {"backend", f.key.backend},
       {"statistic", f.key.statistic},
       {"unit", f.unit},
       {"lower_is_better", f.lower_is_better},
       {"series", f.series}};
}
void from_json(const json& j, HistoryFigure& f) {
  j.at("name").get_to(f.name);
  for (const auto& [key, field] : {std::pair{"phase", &f.key.phase}, std::pair{"mode", &f.key.mode},
                                   std::pair{"backend", &f.key.backend},
                                   std::pair{"statistic", &f.key.statistic}, std::pair{"unit", &f.unit}})
    read_if(j, key, *field);
  read_if(j, "tokens", f.key.tokens);
  read_if(j, "concurrency", f.key.concurrency);
  read_if(j, "lower_is_better", f.lower_is_better);
  f.series = json_list_or_empty<HistorySeries>(j, "series");
}

void to_json(json& j, const HistoryVerdict& v) {
  j = {{"node", v.node},
       {"figure", v.figure},
       {"night", v.night},
       {"verdict", v.verdict},
       {"value", v.value},
       {"baseline", v.baseline},
       {"ratio", v.ratio},
       {"window_spread", v.window_spread},
       {"window_nights", v.window_nights},
       {"in_a_row", v.in_a_row}};
}
void from_json(const json& j, HistoryVerdict& v) {
  j.at("node").get_to(v.node);
  j.at("figure").get_to(v.figure);
  j.at("night").get_to(v.night);
  j.at("verdict").get_to(v.verdict);
  read_if(j, "value", v.value);
  read_if(j, "baseline", v.baseline);
  read_if(j, "ratio", v.ratio);
  read_if(j, "window_spread", v.window_spread);
  read_if(j, "window_nights", v.window_nights);
  read_if(j, "in_a_row", v.in_a_row);
}

void to_json(json& j, const HistoryChangePoint& c) {
  j = {{"node", c.node},
       {"figure", c.figure},
       {"night", c.night},
       {"previous_night", c.previous_night},
       {"pvalue", c.pvalue},
       {"mean_before", c.mean_before},
       {"mean_after", c.mean_after},
       {"changed", c.changed}};
}
void from_json(const json& j, HistoryChangePoint& c) {
  j.at("node").get_to(c.node);
  j.at("figure").get_to(c.figure);
  j.at("night").get_to(c.night);
  read_if(j, "previous_night", c.previous_night);
  read_if(j, "pvalue", c.pvalue);
  read_if(j, "mean_before", c.mean_before);
  read_if(j, "mean_after", c.mean_after);
  c.changed = json_list_or_empty<FieldChange>(j, "changed");
}

void to_json(json& j, const HistoryUpgrade& u) {
  j = {{"node", u.node}, {"night", u.night}, {"previous_night", u.previous_night}, {"changed", u.changed}};
}
void from_json(const json& j, HistoryUpgrade& u) {
  j.at("node").get_to(u.node);
  j.at("night").get_to(u.night);
  read_if(j, "previous_night", u.previous_night);
  u.changed = json_list_or_empty<FieldChange>(j, "changed");
}

void to_json(json& j, const LatestVerdict& l) {
  j = {{"node", l.node},
       {"figure", l.figure},
       {"night", l.night},
       {"verdict", l.verdict},
       {"value", l.value},
       {"baseline", optional_json(l.baseline)},
       {"ratio", optional_json(l.ratio)}};
}
void from_json(const json& j, LatestVerdict& l) {
  j.at("node").get_to(l.node);
  j.at("figure").get_to(l.figure);
  j.at("night").get_to(l.night);
  j.at("verdict").get_to(l.verdict);
  read_if(j, "value", l.value);
  l.baseline = optional_json_at<double>(j, "baseline");
  l.ratio = optional_json_at<double>(j, "ratio");
}

void to_json(json& j, const HistoryDocument& d) {
  const HistoryRules& r = d.rules;
  const ChangePointRules& c = d.change_point_rules;
  j = {{"schema_version", d.schema_version},
       {"tool", {{"name", "k25comm"}, {"version", d.tool_version}, {"git_sha", d.git_sha}}},
       {"generated_at", d.generated_at},
       {"rules",
        {{"window", r.window},
         {"min_window", r.min_window},
         {"threshold_pct", r.threshold_pct},
         {"max_ratio", r.max_ratio},
         {"persist", r.persist},
         {"judge_oversubscribed", r.judge_oversubscribed}}},
       {"change_point_rules",
        {{"method", d.change_point_method},
         {"max_pvalue", c.max_pvalue},
         {"window", c.window},
         {"min_magnitude", c.min_magnitude}}},
       {"nodes", d.nodes},
       {"runs", d.runs},
       {"figures", d.figures},
       {"verdicts", d.verdicts},
       {"change_points", d.change_points},
       {"upgrades", d.upgrades},
       {"latest", d.latest}};
}

void from_json(const json& j, HistoryDocument& d) {
  j.at("schema_version").get_to(d.schema_version);
  if (const auto tool = j.find("tool"); tool != j.end() && tool->is_object()) {
    read_if(*tool, "version", d.tool_version);
    read_if(*tool, "git_sha", d.git_sha);
  }
  read_if(j, "generated_at", d.generated_at);
  if (const auto rules = j.find("rules"); rules != j.end() && rules->is_object()) {
    read_if(*rules, "window", d.rules.window);
    read_if(*rules, "min_window", d.rules.min_window);
    read_if(*rules, "threshold_pct", d.rules.threshold_pct);
    read_if(*rules, "max_ratio", d.rules.max_ratio);
    read_if(*rules, "persist", d.rules.persist);
    read_if(*rules, "judge_oversubscribed", d.rules.judge_oversubscribed);
  }
  if (const auto rules = j.find("change_point_rules"); rules != j.end() && rules->is_object()) {
    read_if(*rules, "method", d.change_point_method);
    read_if(*rules, "max_pvalue", d.change_point_rules.max_pvalue);
    read_if(*rules, "window", d.change_point_rules.window);
    read_if(*rules, "min_magnitude", d.change_point_rules.min_magnitude);
  }
  read_if(j, "nodes", d.nodes);
  d.runs = json_list_or_empty<HistoryRun>(j, "runs");
  d.figures = json_list_or_empty<HistoryFigure>(j, "figures");
  d.verdicts = json_list_or_empty<HistoryVerdict>(j, "verdicts");
  d.change_points = json_list_or_empty<HistoryChangePoint>(j, "change_points");
  d.upgrades = json_list_or_empty<HistoryUpgrade>(j, "upgrades");
  d.latest = json_list_or_empty<LatestVerdict>(j, "latest");
}

HistoryDocument read_history_document(const std::string& text, const std::string& source) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw UsageError(fmt::format("{}: not a JSON object", source));
  const auto version = j.find("schema_version");
  if (version == j.end() || !version->is_number_integer() || !j.contains("verdicts"))
    throw UsageError(fmt::format("{}: no schema_version and verdicts: not a k25comm history.json", source));
  if (*version != kHistorySchemaVersion)
    throw UsageError(
        fmt::format("{}: history.json schema_version {} is not supported (this build reads version {})",
                    source, version->dump(), kHistorySchemaVersion));
  try {
    return j.get<HistoryDocument>();
  } catch (const json::exception& e) {
    throw UsageError(fmt::format("{}: not a valid history.json: {}", source, e.what()));
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("{}: not a valid history.json: {}", source, e.what()));
  }
}

}  // namespace k25
