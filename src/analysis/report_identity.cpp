// Model name and side label of a report.
#include "analysis/report_identity.hpp"

#include <set>

#include <fmt/format.h>

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
  if (report.run.ranks > 0) label += fmt::format(", {} ranks", report.run.ranks);
  if (!report.run.transport.empty()) label += ", " + report.run.transport;
  // run.hosts may list one host per rank: count each host once.
  const std::set<std::string> distinct_hosts(report.run.hosts.begin(), report.run.hosts.end());
  if (!report.run.hosts.empty()) label += ", " + report.run.hosts.front();
  if (distinct_hosts.size() > 1) label += fmt::format(" +{} hosts", distinct_hosts.size() - 1);
  return label;
}

}  // namespace k25
