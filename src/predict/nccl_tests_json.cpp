// nccl-tests' -J file read into one run (src/util.cu of NVIDIA/nccl-tests writes it).
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "common/count_noun.hpp"
#include "common/error.hpp"
#include "predict/kind_names.hpp"
#include "predict/nccl_tests_launch.hpp"
#include "predict/nccl_tests_runs.hpp"

namespace k25 {
namespace {

using nlohmann::json;

// A result's time in one placement ({"time": us}); empty where null, "nan" or absent. -C writes "cpu_time"
// instead: refused, the host's launch time is not an op's time.
std::optional<double> placement_time(const json& result, const char* placement, const std::string& where) {
  if (!result.contains(placement) || !result[placement].is_object()) return std::nullopt;
  const json& p = result[placement];
  if (p.contains("cpu_time"))
    throw UsageError(
        where +
        ": nccl-tests run with -C (cpu_time): the host's time to launch an op, not the op's time: run it without -C");
  if (p.contains("time") && p["time"].is_number()) return p["time"].get<double>();
  return std::nullopt;
}

std::optional<double> placement_wrong(const json& result, const char* placement) {
  if (!result.contains(placement) || !result[placement].is_object()) return std::nullopt;
  const json& p = result[placement];
  if (p.contains("nwrong") && p["nwrong"].is_number()) return p["nwrong"].get<double>();
  return std::nullopt;
}

// The program's name from args[0] ("./build/all_reduce_perf"), as a kind; empty where not said.
std::string json_program_kind(const json& doc) {
  if (!doc.contains("args") || !doc["args"].is_array() || doc["args"].empty() || !doc["args"][0].is_string())
    return {};
  std::string program = doc["args"][0].get<std::string>();
  if (const std::size_t slash = program.rfind('/'); slash != std::string::npos) program.erase(0, slash + 1);
  return normalized_kind(program);
}

int config_count(const json& config, const char* key) {
  if (!config.contains(key) || !config[key].is_number_integer()) return 1;
  return static_cast<int>(std::clamp<long long>(config[key].get<long long>(), 1, kMaxRankCount));
}

// Ranks: one devices entry per process (the root parses each process's first "#  Rank" line), each with
// nthreads x ngpus ranks; hosts: the devices' host names.
void read_config(const json& doc, NcclTestsRun& run) {
  if (!doc.contains("config") || !doc["config"].is_object()) return;
  const json& config = doc["config"];
  if (config.contains("graph") && config["graph"].is_number()) run.graph = config["graph"].get<double>() > 0;
  if (!config.contains("devices") || !config["devices"].is_array()) return;
  const auto processes = static_cast<int>(config["devices"].size());
  const int threads = config_count(config, "nthreads"), gpus = config_count(config, "ngpus");
  run.ranks = static_cast<int>(std::min<long long>(1LL * processes * threads * gpus, kMaxRankCount));
  run.ranks_source = fmt::format("{} = {} x {} x {} (the -J file's config: its devices, nthreads, ngpus)",
                                 run.ranks, count_noun(processes, "process", "processes"),
                                 count_noun(threads, "thread"), count_noun(gpus, "GPU"));
  std::set<std::string> hosts;
  for (const json& d : config["devices"])
    if (d.is_object() && d.contains("hostname") && d["hostname"].is_string())
      hosts.insert(d["hostname"].get<std::string>());
  run.hosts = static_cast<int>(hosts.size());
}

void read_result(const json& result, std::size_t index, const std::string& path, NcclTestsRun& run,
                 std::vector<std::string>& notes) {
  const std::string where = fmt::format("{}: results[{}]", path, index);
  if (!result.is_object() || !result.contains("size") || !result["size"].is_number())
    throw UsageError(where + " has no numeric size");
  const char* placement = "out_of_place";
  std::optional<double> time = placement_time(result, placement, where);
  if (!time) {
    placement = "in_place";
    time = placement_time(result, placement, where);
  }
  if (!time) return;  // neither placement timed (nan): nothing to read
  const double bytes = result["size"].get<double>();
  if (bytes < 0 || *time < 0) throw UsageError(where + " has a negative size or time");
  if (const std::optional<double> wrong = placement_wrong(result, placement); wrong && *wrong != 0) {
    notes.push_back(fmt::format("{}: {:.0f} B measured {:g} wrong elements (nwrong): that size left out",
                                where, bytes, *wrong));
    return;
  }
  if (bytes == 0 || *time == 0) return;
  if (std::string(placement) == "out_of_place")
    time = guarded_op_us(*time, placement_time(result, "in_place", where), where, bytes, notes);
  const auto text = [&](const char* key) {
    return result.contains(key) && result[key].is_string() ? result[key].get<std::string>() : "";
  };
  run.rows.push_back({bytes, *time, normalized_dtype(text("type")), text("redop")});
}

}  // namespace

bool looks_like_nccl_tests_json(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && text[first] == '{' &&
         text.find("\"nccl_version\"") != std::string::npos &&
         (text.find("\"results\"") != std::string::npos || text.find("\"config\"") != std::string::npos);
}

AltDocument alt_from_nccl_tests_json(const std::string& text, const std::string& path,
                                     const AltReadContext& context) {
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    throw UsageError(
        path +
        ": nccl-tests -J JSON that does not parse (cut short while it was written?): its last figures cannot be trusted");
  if (!doc.contains("results") || !doc["results"].is_array())
    throw UsageError(path + ": nccl-tests -J JSON without results (the run ended before its table?)");
  NcclTestsRun run;
  run.kind = json_program_kind(doc);
  read_config(doc, run);
  std::vector<std::string> notes;
  const json& results = doc["results"];
  for (std::size_t i = 0; i < results.size(); ++i) read_result(results[i], i, path, run, notes);
  if (run.rows.empty()) throw UsageError(path + ": nccl-tests JSON without a timed result");
  AltDocument alt = alt_from_nccl_tests_runs({run}, path, context, "", std::move(notes));
  alt.timing = "nccl-tests' out-of-place time per op (wall time of its iterations / iterations)";
  return alt;
}

}  // namespace k25
