// Model name and side label of a report.
#include "analysis/report_identity.hpp"

#include <cctype>
#include <map>
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

std::vector<OversubscribedHost> oversubscribed_hosts(const RunInfo& run) {
  std::map<std::string, int> ranks_per_host;
  for (const std::string& host : run.hosts) ++ranks_per_host[host];
  std::vector<OversubscribedHost> hosts;
  for (const auto& [host, ranks] : ranks_per_host) {
    const auto cores = run.host_cores.find(host);
    if (cores != run.host_cores.end() && cores->second > 0 && ranks > cores->second)
      hosts.push_back({host, ranks, cores->second});
  }
  return hosts;
}

namespace {

// "moonshotai/Kimi-K2.5" -> "kimik25": the part after the last '/', letters and digits only, lower case.
std::string model_key(const std::string& name) {
  std::string key;
  for (const char c : name.substr(name.rfind('/') + 1))
    if (std::isalnum(static_cast<unsigned char>(c)))
      key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return key;
}

}  // namespace

std::string foreign_served_model(const RunReport& report) {
  const std::string served = report.serve.model, replayed = report_model_name(report);
  const std::string served_key = model_key(served), replayed_key = model_key(replayed);
  if (served_key.empty() || replayed_key.empty()) return {};
  const bool same = served_key.find(replayed_key) != std::string::npos ||
                    replayed_key.find(served_key) != std::string::npos;
  return same ? std::string() : served;
}

}  // namespace k25
