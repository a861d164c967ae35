// A verdict's line and JSON form.
#include "doctor/model/node_verdict.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace k25 {

std::string NodeVerdict::line() const {
  return fmt::format("{}: {}: {}. Fix: {} [source: {}{}]", to_string(severity), finding, cost, fix, source,
                     url.empty() ? "" : ", " + url);
}

void to_json(nlohmann::json& j, const NodeVerdict& v) {
  j = nlohmann::json{{"id", to_string(v.id)}, {"severity", to_string(v.severity)},
                     {"finding", v.finding},  {"cost", v.cost},
                     {"fix", v.fix},          {"source", v.source},
                     {"url", v.url},          {"evidence", v.evidence},
                     {"line", v.line()}};
}

void from_json(const nlohmann::json& j, NodeVerdict& v) {
  const std::string id = j.value("id", "");
  const auto known = enum_from_name<VerdictId>(id);
  if (!known) throw std::invalid_argument(fmt::format("a verdict of an unknown kind '{}'", id));
  v.id = *known;
  v.severity = enum_from_name<Severity>(j.value("severity", "")).value_or(Severity::check);
  v.finding = j.value("finding", "");
  v.cost = j.value("cost", "");
  v.fix = j.value("fix", "");
  v.source = j.value("source", "");
  v.url = j.value("url", "");
  v.evidence.clear();
  if (j.contains("evidence") && j["evidence"].is_array())
    for (const nlohmann::json& item : j["evidence"])
      if (item.is_object()) v.evidence.push_back(item.get<FactSource>());
}

}  // namespace k25
