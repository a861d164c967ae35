// nccl-tests' -J file read as an alternative's per-op curve.
#include <fmt/format.h>

#include "common/error.hpp"
#include "predict/kind_names.hpp"
#include "predict/nccl_tests_reader.hpp"

namespace k25 {
namespace {

using nlohmann::json;

// A result's time in one placement: {"time": us} (or "cpu_time"); empty where null, "nan" or absent.
std::optional<double> placement_time(const json& result, const char* placement) {
  if (!result.contains(placement) || !result[placement].is_object()) return std::nullopt;
  const json& p = result[placement];
  for (const char* key : {"time", "cpu_time"})
    if (p.contains(key) && p[key].is_number()) return p[key].get<double>();
  return std::nullopt;
}

// The program's name from args[0] ("./build/all_reduce_perf"), as a kind.
std::string program_kind(const json& doc) {
  if (!doc.contains("args") || !doc["args"].is_array() || doc["args"].empty() || !doc["args"][0].is_string())
    return {};
  std::string program = doc["args"][0].get<std::string>();
  if (const std::size_t slash = program.rfind('/'); slash != std::string::npos) program.erase(0, slash + 1);
  return normalized_kind(program);
}

int device_count(const json& doc) {
  if (!doc.contains("config") || !doc["config"].is_object()) return 0;
  const json& config = doc["config"];
  if (!config.contains("devices") || !config["devices"].is_array()) return 0;
  return static_cast<int>(config["devices"].size());
}

void read_result(const json& result, std::size_t index, const std::string& kind, AltDocument& alt) {
  const std::string where = fmt::format("{}: results[{}]", alt.path, index);
  if (!result.is_object() || !result.contains("size") || !result["size"].is_number())
    throw UsageError(where + " has no numeric size");
  std::optional<double> time = placement_time(result, "out_of_place");
  if (!time) time = placement_time(result, "in_place");
  if (!time) return;  // neither placement timed (nan): nothing to read
  const double bytes = result["size"].get<double>();
  if (bytes < 0 || *time < 0) throw UsageError(where + " has a negative size or time");
  if (bytes == 0 || *time == 0) return;
  const std::string dtype = result.contains("type") && result["type"].is_string()
                                ? normalized_dtype(result["type"].get<std::string>())
                                : "";
  add_point(alt, kind, dtype, AltPoint{bytes, *time, std::nullopt});
}

}  // namespace

bool looks_like_nccl_tests_json(const json& doc) {
  return doc.is_object() && doc.contains("results") && doc["results"].is_array() &&
         (doc.contains("nccl_version") || doc.contains("config"));
}

AltDocument alt_from_nccl_tests_json(const json& doc, const std::string& path) {
  AltDocument alt;
  alt.path = path;
  alt.format = "nccl-tests JSON";
  alt.timing = "nccl-tests' out-of-place time per op (wall time of its iterations / iterations)";
  const std::string kind = program_kind(doc);
  if (kind.empty())
    throw UsageError(
        path + ": nccl-tests JSON without its program in args[0]: the collective it measured is not known");
  const json& results = doc["results"];
  for (std::size_t i = 0; i < results.size(); ++i) read_result(results[i], i, kind, alt);
  if (alt.curves.empty()) throw UsageError(path + ": nccl-tests JSON without a timed result");
  alt.ranks = device_count(doc);
  alt.notes.push_back("nccl-tests gives one time per size (a mean over its iterations): p90 is taken as p50");
  return alt;
}

}  // namespace k25
