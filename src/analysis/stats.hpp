// Distribution summary of a sample set: min, p50, p90, p99, max, mean (the report's STATS object).
#pragma once

#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

namespace k25 {

struct Stats {
  double min = 0, p50 = 0, p90 = 0, p99 = 0, max = 0, mean = 0;
  bool operator==(const Stats&) const = default;
};

// Percentiles by linear interpolation between closest ranks (numpy's default). Empty input: all zeros.
Stats summarize(std::vector<double> samples);
// The same, but an empty sample set has no distribution: nullopt (report.json writes null, never zeros).
std::optional<Stats> summarize_if_any(std::vector<double> samples);
double percentile(const std::vector<double>& sorted_samples, double fraction);

void to_json(nlohmann::json& j, const Stats& s);
void from_json(const nlohmann::json& j, Stats& s);

// An optional STATS in JSON: null when there is none; read back, null (or absent) is none.
nlohmann::json stats_or_null(const std::optional<Stats>& stats);
std::optional<Stats> stats_from_json_or_null(const nlohmann::json& object, const char* key);

}  // namespace k25
