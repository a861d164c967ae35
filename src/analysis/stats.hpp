// Distribution summary of a sample set: min, p50, p90, p99, max, mean (the report's STATS object).
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

namespace k25 {

struct Stats {
  double min = 0, p50 = 0, p90 = 0, p99 = 0, max = 0, mean = 0;
  bool operator==(const Stats&) const = default;
};

// Percentiles by linear interpolation between closest ranks (numpy's default). Empty input: all zeros.
Stats summarize(std::vector<double> samples);
double percentile(const std::vector<double>& sorted_samples, double fraction);

void to_json(nlohmann::json& j, const Stats& s);
void from_json(const nlohmann::json& j, Stats& s);

}  // namespace k25
