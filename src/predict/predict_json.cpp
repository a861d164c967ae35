// predict.json (schema_version 1) and predict.csv.
#include <fmt/format.h>

#include "common/csv_table.hpp"
#include "predict/predict_document.hpp"

namespace k25 {
namespace {

using nlohmann::json;

json optional_number(const std::optional<double>& value) {
  return value ? json(*value) : json(nullptr);
}

json kind_json(const KindEstimate& k) {
  return {{"kind", k.kind},
          {"bytes", k.bytes},
          {"ops_per_step", k.ops_per_step},
          {"base_comm_us", k.base_comm_us},
          {"base_exposed_us", k.base_exposed_us},
          {"hidden_us", k.hidden_us},
          {"wait_us", optional_number(k.wait_us)},
          {"alt_op_us", optional_number(k.alt_op_us)},
          {"alt_op_p90_us", optional_number(k.alt_op_p90_us)},
          {"source", k.source},
          {"new_comm_us", k.new_comm_us},
          {"new_exposed_us", k.new_exposed_us},
          {"new_exposed_p90_us", k.new_exposed_p90_us}};
}

json estimate_json(const std::optional<StepEstimate>& s) {
  if (!s) return nullptr;
  json kinds = json::array();
  for (const KindEstimate& k : s->kinds) kinds.push_back(kind_json(k));
  return {{"method", to_string(s->method)},      {"step_us", s->step_us},
          {"step_p90_us", s->step_p90_us},       {"exposed_us", s->exposed_us},
          {"exposed_p90_us", s->exposed_p90_us}, {"kinds", kinds}};
}

json level_json(const LevelPrediction& l) {
  const bool predicted = l.refused.empty();
  return {{"batch", l.batch},
          {"unit", l.step_is_tpot ? "tpot" : "step"},
          {"base_step_us", l.base_step_us},
          {"base_step_p90_us", l.base_step_p90_us},
          {"base_exposed_us", l.base_exposed_us},
          {"refused", predicted ? json(nullptr) : json(l.refused)},
          {"method", predicted ? json(to_string(l.predicted().method)) : json(nullptr)},
          {"tag", prediction_tag(l)},
          {"predicted", predicted ? estimate_json(l.predicted()) : json(nullptr)},
          {"join_aware", estimate_json(l.join_aware)},
          {"back_to_back", estimate_json(l.back_to_back)},
          {"back_to_back_reason", l.back_to_back_reason},
          {"output_tokens_per_s", optional_number(predicted_output_tokens_per_s(l))},
          {"moved_most", l.moved_most},
          {"notes", l.notes}};
}

json base_json(const BaseDocument& b) {
  json levels = json::array();
  for (const BaseLevel& l : b.levels) {
    json kinds = json::array();
    for (const BaseKind& k : l.kinds)
      kinds.push_back({{"kind", k.kind},
                       {"dtype", k.dtype},
                       {"bytes", k.bytes},
                       {"ops_per_step", k.ops_per_step},
                       {"comm_us", k.comm_us},
                       {"hidden_us", k.hidden_us},
                       {"wait_us", optional_number(k.wait_us)},
                       {"wait_source", k.wait_source}});
    levels.push_back({{"batch", l.batch},
                      {"unit", l.step_is_tpot ? "tpot" : "step"},
                      {"step_us", l.step_us},
                      {"step_p90_us", l.step_p90_us},
                      {"kinds", kinds}});
  }
  return {{"path", b.path},   {"format", b.format}, {"step", b.step_what},
          {"ranks", b.ranks}, {"notes", b.notes},   {"levels", levels}};
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
      for (const std::optional<StepEstimate>& s : {l.join_aware, l.back_to_back}) {
        if (!s && l.refused.empty()) continue;
        rows.push_back({{"alternative", a.label},
                        {"batch", l.batch},
                        {"unit", l.step_is_tpot ? "tpot" : "step"},
                        {"method", s ? json(to_string(s->method)) : json(nullptr)},
                        {"base_step_us", l.base_step_us},
                        {"base_exposed_us", l.base_exposed_us},
                        {"predicted_exposed_us", s ? json(s->exposed_us) : json(nullptr)},
                        {"predicted_step_us", s ? json(s->step_us) : json(nullptr)},
                        {"predicted_step_p90_us", s ? json(s->step_p90_us) : json(nullptr)},
                        {"refused", l.refused}});
        if (!s) break;
      }
    }
  return csv_of_records(rows,
                        {"alternative", "batch", "unit", "method", "base_step_us", "base_exposed_us",
                         "predicted_exposed_us", "predicted_step_us", "predicted_step_p90_us", "refused"});
}

}  // namespace k25
