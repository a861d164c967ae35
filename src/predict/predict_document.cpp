// predict.json: each field named once, written and read back (docs/predict.md lists them).
#include "predict/predict_document.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/optional_json.hpp"

namespace k25 {
namespace {

using nlohmann::json;

// A method or source read back by its name; json::other_error naming the field where it is none of them.
template <NamedEnum E>
E enum_at(const json& j, const char* key) {
  const std::string name = j.at(key).get<std::string>();
  if (const std::optional<E> value = enum_from_name<E>(name)) return *value;
  throw json::other_error::create(501, fmt::format("{} '{}' is none of {}", key, name, enum_name_list<E>()),
                                  &j);
}

std::optional<double> optional_at(const json& j, const char* key) {
  const json& value = j.at(key);
  if (value.is_null()) return std::nullopt;
  return value.get<double>();
}

const char* unit_name(bool step_is_tpot) {
  return step_is_tpot ? "tpot" : "step";
}

bool unit_is_tpot(const json& j) {
  const std::string unit = j.at("unit").get<std::string>();
  if (unit != "tpot" && unit != "step")
    throw json::other_error::create(501, "unit '" + unit + "' is none of tpot, step", &j);
  return unit == "tpot";
}

json join_json(const std::optional<BaseJoin>& join) {
  if (!join) return nullptr;
  return {{"wait_us", join->wait_us}, {"transfer_us", join->transfer_us}, {"source", join->source}};
}

std::optional<BaseJoin> join_from(const json& j) {
  if (j.is_null()) return std::nullopt;
  return BaseJoin{j.at("wait_us").get<double>(), j.at("transfer_us").get<double>(),
                  j.at("source").get<std::string>()};
}

json base_kind_json(const BaseKind& k) {
  return {{"kind", k.kind},
          {"name", k.name},
          {"dtype", k.dtype},
          {"launch", k.launch},
          {"bytes", k.bytes},
          {"size_from_config", k.size_from_config},
          {"ops_per_step", k.ops_per_step},
          {"comm_us", k.comm_us},
          {"hidden_us", k.hidden_us},
          {"join", join_json(k.join)}};
}

BaseKind base_kind_from(const json& j) {
  BaseKind k;
  k.kind = j.at("kind").get<std::string>();
  k.name = j.at("name").get<std::string>();
  k.dtype = j.at("dtype").get<std::string>();
  k.launch = j.at("launch").get<std::string>();
  k.bytes = j.at("bytes").get<double>();
  k.size_from_config = j.at("size_from_config").get<bool>();
  k.ops_per_step = j.at("ops_per_step").get<double>();
  k.comm_us = j.at("comm_us").get<double>();
  k.hidden_us = j.at("hidden_us").get<double>();
  k.join = join_from(j.at("join"));
  return k;
}

json base_level_json(const BaseLevel& l) {
  json kinds = json::array();
  for (const BaseKind& k : l.kinds) kinds.push_back(base_kind_json(k));
  return {{"batch", l.batch},     {"unit", unit_name(l.step_is_tpot)},
          {"step_us", l.step_us}, {"step_p90_us", l.step_p90_us},
          {"kinds", kinds},       {"notes", l.notes},
          {"caveats", l.caveats}};
}

BaseLevel base_level_from(const json& j) {
  BaseLevel l;
  l.batch = j.at("batch").get<int>();
  l.step_is_tpot = unit_is_tpot(j);
  l.step_us = j.at("step_us").get<double>();
  l.step_p90_us = j.at("step_p90_us").get<double>();
  for (const json& k : j.at("kinds")) l.kinds.push_back(base_kind_from(k));
  l.notes = j.at("notes").get<std::vector<std::string>>();
  l.caveats = j.at("caveats").get<std::vector<std::string>>();
  return l;
}

json kind_estimate_json(const KindEstimate& k) {
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

KindEstimate kind_estimate_from(const json& j) {
  KindEstimate k;
  k.kind = j.at("kind").get<std::string>();
  k.name = j.at("name").get<std::string>();
  k.method = enum_at<PredictMethod>(j, "method");
  k.bytes = j.at("bytes").get<double>();
  k.ops_per_step = j.at("ops_per_step").get<double>();
  k.base_comm_us = j.at("base_comm_us").get<double>();
  k.base_exposed_us = j.at("base_exposed_us").get<double>();
  k.hidden_us = j.at("hidden_us").get<double>();
  k.wait_us = optional_at(j, "wait_us");
  k.alt_op_us = optional_at(j, "alt_op_us");
  k.alt_op_p90_us = optional_at(j, "alt_op_p90_us");
  k.source = enum_at<OpSource>(j, "source");
  k.new_comm_us = j.at("new_comm_us").get<double>();
  k.new_exposed_us = j.at("new_exposed_us").get<double>();
  k.new_exposed_p90_us = j.at("new_exposed_p90_us").get<double>();
  return k;
}

json step_estimate_json(const LevelPrediction& l, const StepEstimate* s) {
  if (s == nullptr) return nullptr;
  json kinds = json::array();
  for (const KindEstimate& k : s->kinds) kinds.push_back(kind_estimate_json(k));
  return {{"method", to_string(s->method)},
          {"step_us", s->step_us},
          {"step_p90_us", s->step_p90_us},
          {"exposed_us", s->exposed_us},
          {"exposed_p90_us", s->exposed_p90_us},
          {"output_tokens_per_s", optional_json(output_tokens_per_s(l, *s))},  // derived
          {"kinds", kinds}};
}

StepEstimate step_estimate_from(const json& j) {
  StepEstimate s;
  s.method = enum_at<PredictMethod>(j, "method");
  s.step_us = j.at("step_us").get<double>();
  s.step_p90_us = j.at("step_p90_us").get<double>();
  s.exposed_us = j.at("exposed_us").get<double>();
  s.exposed_p90_us = j.at("exposed_p90_us").get<double>();
  for (const json& k : j.at("kinds")) s.kinds.push_back(kind_estimate_from(k));
  return s;
}

// The predicted figure: its method (or "range"), its ends and why; the figures derived from the estimates.
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
    estimates[std::string(name)] = step_estimate_json(l, l.estimate(method));
  return {{"batch", l.batch},
          {"unit", unit_name(l.step_is_tpot)},
          {"base_step_us", l.base_step_us},
          {"base_step_p90_us", l.base_step_p90_us},
          {"base_exposed_us", l.base_exposed_us},
          {"refused", l.refused.empty() ? json(nullptr) : json(l.refused)},
          {"tag", prediction_tag(l)},  // derived
          {"predicted", predicted_json(l)},
          {"estimates", estimates},
          {"moved_most", l.moved_most},
          {"notes", l.notes},
          {"caveats", l.caveats}};
}

LevelPrediction level_from(const json& j) {
  LevelPrediction l;
  l.batch = j.at("batch").get<int>();
  l.step_is_tpot = unit_is_tpot(j);
  l.base_step_us = j.at("base_step_us").get<double>();
  l.base_step_p90_us = j.at("base_step_p90_us").get<double>();
  l.base_exposed_us = j.at("base_exposed_us").get<double>();
  if (!j.at("refused").is_null()) l.refused = j.at("refused").get<std::string>();
  const json& estimates = j.at("estimates");
  for (const auto& [method, name] : EnumNames<PredictMethod>::values)
    if (const json& e = estimates.at(std::string(name)); !e.is_null())
      l.estimates.push_back(step_estimate_from(e));
  if (const json& predicted = j.at("predicted"); !predicted.is_null()) {
    l.low = enum_at<PredictMethod>(predicted, "low");
    l.high = enum_at<PredictMethod>(predicted, "high");
    l.why = predicted.at("why").get<std::string>();
    if (l.estimate(l.low) == nullptr || l.estimate(l.high) == nullptr)
      throw json::other_error::create(501, "predicted names an estimate that is null", &j);
  }
  l.moved_most = j.at("moved_most").get<std::vector<std::string>>();
  l.notes = j.at("notes").get<std::vector<std::string>>();
  l.caveats = j.at("caveats").get<std::vector<std::string>>();
  return l;
}

}  // namespace

void to_json(json& j, const BaseDocument& b) {
  json levels = json::array();
  for (const BaseLevel& l : b.levels) levels.push_back(base_level_json(l));
  j = {{"path", b.path},   {"format", b.format}, {"step", b.step_what},  {"ranks", b.ranks},
       {"shape", b.shape}, {"notes", b.notes},   {"caveats", b.caveats}, {"levels", levels}};
}

void from_json(const json& j, BaseDocument& b) {
  b.path = j.at("path").get<std::string>();
  b.format = j.at("format").get<std::string>();
  b.step_what = j.at("step").get<std::string>();
  b.ranks = j.at("ranks").get<int>();
  b.shape = j.at("shape").get<std::string>();
  b.notes = j.at("notes").get<std::vector<std::string>>();
  b.caveats = j.at("caveats").get<std::vector<std::string>>();
  b.levels.clear();
  for (const json& l : j.at("levels")) b.levels.push_back(base_level_from(l));
}

void to_json(json& j, const AltPrediction& a) {
  json levels = json::array();
  for (const LevelPrediction& l : a.levels) levels.push_back(level_json(l));
  j = {{"label", a.label},           {"path", a.path},   {"format", a.format},
       {"timing", a.timing},         {"ranks", a.ranks}, {"headline", a.headline},
       {"mismatches", a.mismatches}, {"notes", a.notes}, {"levels", levels}};
}

void from_json(const json& j, AltPrediction& a) {
  a.label = j.at("label").get<std::string>();
  a.path = j.at("path").get<std::string>();
  a.format = j.at("format").get<std::string>();
  a.timing = j.at("timing").get<std::string>();
  a.ranks = j.at("ranks").get<int>();
  a.headline = j.at("headline").get<std::string>();
  a.mismatches = j.at("mismatches").get<std::vector<std::string>>();
  a.notes = j.at("notes").get<std::vector<std::string>>();
  a.levels.clear();
  for (const json& l : j.at("levels")) a.levels.push_back(level_from(l));
}

void to_json(json& j, const PredictDocument& d) {
  j = {{"schema_version", d.schema_version},
       {"tool", {{"name", "k25comm"}, {"version", d.tool_version}, {"git_sha", d.git_sha}}},
       {"predict", {{"created_at", d.created_at}, {"command_line", d.command_line}}},
       {"model", model_lines()},                          // derived: the model this build predicts by
       {"throughput_assumption", kThroughputAssumption},  // derived
       {"base", d.base},
       {"alternatives", d.alternatives}};
}

void from_json(const json& j, PredictDocument& d) {
  d.schema_version = j.at("schema_version").get<int>();
  const json& tool = j.at("tool");
  d.tool_version = tool.at("version").get<std::string>();
  d.git_sha = tool.at("git_sha").get<std::string>();
  const json& predict = j.at("predict");
  d.created_at = predict.at("created_at").get<std::string>();
  d.command_line = predict.at("command_line").get<std::string>();
  d.base = j.at("base").get<BaseDocument>();
  d.alternatives = j.at("alternatives").get<std::vector<AltPrediction>>();
}

json predict_json(const PredictDocument& document) {
  return document;
}

std::string predict_json_text(const PredictDocument& document) {
  return predict_json(document).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

PredictDocument read_predict_document(const std::string& text, const std::string& path) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw UsageError(path + ": not JSON (predict.json is one object)");
  const std::optional<int> version = optional_json_at<int>(j, "schema_version");
  if (version != kPredictSchemaVersion)
    throw UsageError(fmt::format("{}: predict.json schema_version {}, this build reads {}", path,
                                 version ? std::to_string(*version) : "missing", kPredictSchemaVersion));
  try {
    return j.get<PredictDocument>();
  } catch (const json::exception& e) {
    throw UsageError(fmt::format("{}: not predict.json as this build writes it: {}", path, e.what()));
  }
}

}  // namespace k25
