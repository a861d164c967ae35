// Percentiles and mean of timing samples.
#include "common/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace k25 {

double percentile(const std::vector<double>& sorted, double fraction) {
  if (sorted.empty()) return 0.0;
  const double position = fraction * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const std::size_t upper = std::min(lower + 1, sorted.size() - 1);
  const double weight = position - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * weight;
}

Stats summarize(std::vector<double> samples) {
  Stats s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.max = samples.back();
  s.p50 = percentile(samples, 0.50);
  s.p90 = percentile(samples, 0.90);
  s.p99 = percentile(samples, 0.99);
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  return s;
}

std::optional<Stats> summarize_if_any(std::vector<double> samples) {
  if (samples.empty()) return std::nullopt;
  return summarize(std::move(samples));
}

void to_json(nlohmann::json& j, const Stats& s) {
  j = {{"min", s.min}, {"p50", s.p50}, {"p90", s.p90}, {"p99", s.p99}, {"max", s.max}, {"mean", s.mean}};
}

void from_json(const nlohmann::json& j, Stats& s) {
  s.min = j.at("min").get<double>();
  s.p50 = j.at("p50").get<double>();
  s.p90 = j.at("p90").get<double>();
  s.p99 = j.at("p99").get<double>();
  s.max = j.at("max").get<double>();
  s.mean = j.at("mean").get<double>();
}

nlohmann::json stats_or_null(const std::optional<Stats>& stats) {
  return stats ? nlohmann::json(*stats) : nlohmann::json(nullptr);
}

std::optional<Stats> stats_from_json_or_null(const nlohmann::json& object, const char* key) {
  const auto member = object.find(key);
  if (member == object.end() || member->is_null()) return std::nullopt;
  try {
    return member->get<Stats>();
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string(key) + ": " + e.what());
  }
}

}  // namespace k25
