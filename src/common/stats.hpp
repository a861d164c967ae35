// Summaries of sample sets: the report's STATS (min, p50, p90, p99, max, mean) and percentiles.
#pragma once

#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/vocabulary.hpp"

namespace k25 {

// Percentiles by linear interpolation between closest ranks (numpy's default). Empty input: all zeros.
Stats summarize(std::vector<double> samples);
// The same, but an empty sample set has no distribution: nullopt (report.json writes null, never zeros).
std::optional<Stats> summarize_if_any(std::vector<double> samples);
double percentile(const std::vector<double>& sorted_samples, double fraction);

// An optional STATS in JSON: null when there is none; read back, null (or absent) is none.
nlohmann::json stats_or_null(const std::optional<Stats>& stats);
std::optional<Stats> stats_from_json_or_null(const nlohmann::json& object, const char* key);

}  // namespace k25
