// Model name and side label of a report.
#include "analysis/report_identity.hpp"

#include <set>

#include <fmt/format.h>

#include "common/count_noun.hpp"

namespace k25 {

std::string report_model_name(const RunReport& report) {
  const nlohmann::json& config = report.run.config;
  if (!config.is_object() || !config.contains("model")) return {};
  const nlohmann::json& model = config["model"];
  if (model.is_string()) return model.get<std::string>();
  if (model.is_object() && model.contains("name") && model["name"].is_string())
    return model["name"].get<std::string>();
  return {};
}

std::string report_label(const RunReport& report) {
  std::string label = report.topology.kind.empty() ? "unknown topology" : report.topology.kind;
  if (report.run.ranks > 0) label += ", " + count_noun(report.run.ranks, "rank");
  if (!report.run.transport.empty()) label += ", " + report.run.transport;
  // run.hosts may list one host per rank: count each host once.
  const std::set<std::string> distinct_hosts(report.run.hosts.begin(), report.run.hosts.end());
  if (!report.run.hosts.empty()) label += ", " + report.run.hosts.front();
  if (distinct_hosts.size() > 1)
    label += " +" + count_noun(static_cast<long long>(distinct_hosts.size()) - 1, "host");
  return label;
}

}  // namespace k25
