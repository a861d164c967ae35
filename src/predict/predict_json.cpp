// predict.json (schema_version 2) and predict.csv.
#include <fmt/format.h>

#include "common/csv_table.hpp"
#include "common/optional_json.hpp"
#include "predict/predict_document.hpp"

namespace k25 {
namespace {

using nlohmann::json;

json kind_json(const KindEstimate& k) {
  return {{"kind", k.kind},
          {"name", k.name},
          {"method", to_string(k.method)},
          {"bytes", k.bytes},
          {"ops_per_step", k.ops_per_step},
          {"base_comm_us", k.base_comm_us},
          {"base_exposed_us", k.base_exposed_us},
          {"hidden_us", k.hidden_us},
          {"wait_us", optional_json(k.wait_us)},
          {"alt_op_us", optional_json(k.alt_op_us)},
          {"alt_op_p90_us", optional_json(k.alt_op_p90_us)},
          {"source", to_string(k.source)},
          {"new_comm_us", k.new_comm_us},
          {"new_exposed_us", k.new_exposed_us},
          {"new_exposed_p90_us", k.new_exposed_p90_us}};
}

json estimate_json(const LevelPrediction& l, const StepEstimate* s) {
  if (s == nullptr) return nullptr;
  json kinds = json::array();
  for (const KindEstimate& k : s->kinds) kinds.push_back(kind_json(k));
  return {{"method", to_string(s->method)},
          {"step_us", s->step_us},
          {"step_p90_us", s->step_p90_us},
          {"exposed_us", s->exposed_us},
          {"exposed_p90_us", s->exposed_p90_us},
          {"output_tokens_per_s", optional_json(output_tokens_per_s(l, *s))},
          {"kinds", kinds}};
}

// The predicted figure: its method (or "range"), its ends and why.
json predicted_json(const LevelPrediction& l) {
  if (!l.refused.empty()) return nullptr;
  const StepEstimate &low = l.low_estimate(), &high = l.high_estimate();
  return {{"method", l.is_range() ? "range" : to_string(l.low)},
          {"low", to_string(l.low)},
          {"high", to_string(l.high)},
          {"why", l.why},
          {"step_us", {low.step_us, high.step_us}},
          {"step_p90_us", {low.step_p90_us, high.step_p90_us}},
          {"exposed_us", {low.exposed_us, high.exposed_us}}};
}

json level_json(const LevelPrediction& l) {
  json estimates = json::object();
  for (const auto& [method, name] : EnumNames<PredictMethod>::values)
    estimates[std::string(name)] = estimate_json(l, l.estimate(method));
  return {{"batch", l.batch},
          {"unit", l.step_is_tpot ? "tpot" : "step"},
          {"base_step_us", l.base_step_us},
          {"base_step_p90_us", l.base_step_p90_us},
          {"base_exposed_us", l.base_exposed_us},
          {"refused", l.refused.empty() ? json(nullptr) : json(l.refused)},
          {"tag", prediction_tag(l)},
          {"predicted", predicted_json(l)},
          {"estimates", estimates},
          {"moved_most", l.moved_most},
          {"notes", l.notes}};
}

json base_kind_json(const BaseKind& k) {
  return {{"kind", k.kind},
          {"name", k.name},
          {"dtype", k.dtype},
          {"launch", k.launch},
          {"bytes", k.bytes},
          {"ops_per_step", k.ops_per_step},
          {"comm_us", k.comm_us},
          {"hidden_us", k.hidden_us},
          {"join", k.join ? json{{"wait_us", k.join->wait_us},
                                 {"transfer_us", k.join->transfer_us},
                                 {"source", k.join->source}}
                          : json(nullptr)}};
}

json base_json(const BaseDocument& b) {
  json levels = json::array();
  for (const BaseLevel& l : b.levels) {
    json kinds = json::array();
    for (const BaseKind& k : l.kinds) kinds.push_back(base_kind_json(k));
    levels.push_back({{"batch", l.batch},
                      {"unit", l.step_is_tpot ? "tpot" : "step"},
                      {"step_us", l.step_us},
                      {"step_p90_us", l.step_p90_us},
                      {"kinds", kinds},
                      {"notes", l.notes}});
  }
  return {{"path", b.path},   {"format", b.format}, {"step", b.step_what}, {"ranks", b.ranks},
          {"shape", b.shape}, {"notes", b.notes},   {"levels", levels}};
}

}  // namespace

json predict_json(const PredictResult& r) {
  json alternatives = json::array();
  for (const AltPrediction& a : r.alternatives) {
    json levels = json::array();
    for (const LevelPrediction& l : a.levels) levels.push_back(level_json(l));
    alternatives.push_back({{"label", a.label},
                            {"path", a.path},
                            {"format", a.format},
                            {"timing", a.timing},
                            {"ranks", a.ranks},
                            {"headline", a.headline},
                            {"mismatches", a.mismatches},
                            {"notes", a.notes},
                            {"levels", levels}});
  }
  return {{"schema_version", kPredictSchemaVersion},
          {"tool", {{"name", "k25comm"}, {"version", r.tool_version}, {"git_sha", r.git_sha}}},
          {"predict", {{"created_at", r.created_at}, {"command_line", r.command_line}}},
          {"model", model_lines()},
          {"throughput_assumption", kThroughputAssumption},
          {"base", base_json(r.base)},
          {"alternatives", alternatives}};
}

std::string predict_csv(const PredictResult& r) {
  std::vector<json> rows;
  for (const AltPrediction& a : r.alternatives)
    for (const LevelPrediction& l : a.levels) {
      const json common{{"alternative", a.label},
                        {"batch", l.batch},
                        {"unit", l.step_is_tpot ? "tpot" : "step"},
                        {"base_step_us", l.base_step_us},
                        {"base_exposed_us", l.base_exposed_us},
                        {"refused", l.refused}};
      if (!l.refused.empty()) {
        json row = common;
        row.update({{"method", nullptr}, {"predicted", ""}});
        rows.push_back(row);
        continue;
      }
      for (const StepEstimate& s : l.estimates) {
        json row = common;
        const bool low = s.method == l.low, high = s.method == l.high;
        row.update({{"method", to_string(s.method)},
                    {"predicted", low && high ? "yes"
                                  : low       ? "low"
                                  : high      ? "high"
                                              : ""},
                    {"predicted_exposed_us", s.exposed_us},
                    {"predicted_step_us", s.step_us},
                    {"predicted_step_p90_us", s.step_p90_us}});
        rows.push_back(row);
      }
    }
  return csv_of_records(
      rows, {"alternative", "batch", "unit", "method", "predicted", "base_step_us", "base_exposed_us",
             "predicted_exposed_us", "predicted_step_us", "predicted_step_p90_us", "refused"});
}

}  // namespace k25
