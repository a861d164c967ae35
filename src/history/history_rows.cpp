// A report's run row and figure rows (history_rows.hpp).
#include "history/history_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "analysis/report_identity.hpp"
#include "common/error.hpp"

namespace k25 {
namespace {

// FNV-1a, 64 bits: a stable identity of a text (not a secret: the config is in the report in clear).
std::string fnv1a_hex(const std::string& text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return fmt::format("{:016x}", hash);
}

// The effective config without `output` (each night writes into its own folder): what shapes the figures.
std::string config_hash(const nlohmann::json& config) {
  if (config.is_null()) return "";
  nlohmann::json shaping = config;
  if (shaping.is_object()) shaping.erase("output");
  return fnv1a_hex(shaping.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::string joined_hosts(const std::vector<std::string>& hosts) {
  std::string joined;
  for (const std::string& host : hosts) joined += (joined.empty() ? "" : "+") + host;
  return joined;
}

// "8x NVIDIA H100 80GB HBM3"; several models listed each with its count.
std::string gpu_summary(const std::vector<GpuInfo>& gpus) {
  std::vector<std::pair<std::string, int>> counts;
  for (const GpuInfo& gpu : gpus) {
    auto found =
        std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == gpu.name; });
    if (found == counts.end())
      counts.emplace_back(gpu.name, 1);
    else
      ++found->second;
  }
  std::string summary;
  for (const auto& [name, count] : counts)
    summary += fmt::format("{}{}x {}", summary.empty() ? "" : ", ", count, name.empty() ? "GPU" : name);
  return summary;
}

std::string driver_of(const TopologyInfo& topology) {
  for (const NodeFacts& node : topology.nodes)
    if (!node.driver_version.empty()) return node.driver_version;
  for (const GpuInfo& gpu : topology.gpus)
    if (!gpu.driver_version.empty()) return gpu.driver_version;
  return "";
}

std::string cuda_of(const TopologyInfo& topology) {
  for (const NodeFacts& node : topology.nodes)
    if (!node.cuda_driver_version.empty()) return node.cuda_driver_version;
  return "";
}

std::string nccl_of(const TopologyInfo& topology) {
  if (!topology.nccl_version.empty()) return topology.nccl_version;
  for (const NodeFacts& node : topology.nodes)
    if (!node.nccl_version.empty()) return node.nccl_version;
  return "";
}

// A distribution's row: p50 as the value, p90 / p50 - 1 as its spread.
FigureRow distribution_row(FigureKey key, const Stats& stats, const std::string& unit, long long samples) {
  FigureRow row;
  row.key = std::move(key);
  row.value = stats.p50;
  row.unit = unit;
  if (stats.p50 > 0) row.spread = std::max(stats.p90 / stats.p50 - 1.0, 0.0);
  row.p90 = stats.p90;
  row.p99 = stats.p99;
  row.mean = stats.mean;
  row.samples = samples;
  return row;
}

FigureRow scalar_row(FigureKey key, double value, const std::string& unit) {
  FigureRow row;
  row.key = std::move(key);
  row.value = value;
  row.unit = unit;
  return row;
}

}  // namespace

std::string figure_backend(const RunReport& report, const PhaseResult& result) {
  if (!result.backend.empty()) return result.backend;
  return report.run.transport == "nccl" ? "nccl" : "mpi";  // a report before results[].backend
}

bool lower_is_better(const std::string& statistic) {
  return statistic != "busbw" && statistic != "output_throughput";
}

bool judged_statistic(const std::string& statistic) {
  return statistic == "burst" || statistic == "tpot" || statistic == "output_throughput";
}

std::string figure_name(const FigureKey& key) {
  if (key.phase == "serve") return fmt::format("serve C={} {}", key.concurrency, key.statistic);
  return fmt::format("{} T={} {} {} {}", key.phase, key.tokens, key.mode, key.backend, key.statistic);
}

std::map<std::string, std::string> run_fields(const RunRow& run) {
  std::map<std::string, std::string> fields{{"nccl", run.nccl},
                                            {"driver", run.driver},
                                            {"cuda", run.cuda},
                                            {"commit", run.commit},
                                            {"config", run.config_hash},
                                            {"k25comm", run.tool_version},
                                            {"mpi", run.mpi},
                                            {"gpus", run.gpus},
                                            {"topology", run.topology},
                                            {"transport", run.transport},
                                            {"ranks", std::to_string(run.ranks)},
                                            {"model", run.model}};
  for (const auto& [name, value] : run.nccl_env) fields["env " + name] = value;
  return fields;
}

std::vector<FieldChange> changed_fields(const RunRow& before, const RunRow& after) {
  static const std::vector<std::string> order{"nccl", "driver", "cuda",     "commit",    "config", "k25comm",
                                              "mpi",  "gpus",   "topology", "transport", "ranks",  "model"};
  const std::map<std::string, std::string> a = run_fields(before), b = run_fields(after);
  std::vector<std::string> names = order;
  for (const auto* fields : {&a, &b})
    for (const auto& [name, value] : *fields)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  std::vector<FieldChange> changes;
  for (const std::string& name : names) {
    const auto x = a.find(name), y = b.find(name);
    const std::string old_value = x == a.end() ? "" : x->second, new_value = y == b.end() ? "" : y->second;
    if (old_value != new_value) changes.push_back({name, old_value, new_value});
  }
  return changes;
}

HistoryNight rows_from_report(const RunReport& report, const std::string& report_path) {
  const RunInfo& run = report.run;
  if (run.started_at.empty())
    throw UsageError(fmt::format("{}: no run.started_at: not a report of a k25comm run", report_path));
  if (run.hosts.empty())
    throw UsageError(fmt::format("{}: no run.hosts: not a report of a k25comm run", report_path));
  if (report.results.empty() && report.serve.levels.empty())
    throw UsageError(
        fmt::format("{}: no results and no serve levels: nothing measured to keep", report_path));
  HistoryNight night;
  RunRow& row = night.run;
  row.node = joined_hosts(run.hosts);
  row.started_at = run.started_at;
  row.finished_at = run.finished_at;
  row.report_path = report_path;
  row.report_schema_version = report.schema_version;
  row.tool_version = report.tool.version;
  row.commit = report.tool.git_sha;
  row.config_hash = config_hash(run.config);
  row.model = report_model_name(report);
  row.topology = report.topology.kind;
  row.gpus = gpu_summary(report.topology.gpus);
  row.gpu_count = static_cast<int>(report.topology.gpus.size());
  row.driver = driver_of(report.topology);
  row.cuda = cuda_of(report.topology);
  row.nccl = nccl_of(report.topology);
  row.mpi = run.mpi_version;
  row.transport = run.transport;
  row.ranks = run.ranks;
  row.complete = run.complete;
  row.oversubscribed = !oversubscribed_hosts(run).empty();
  for (const auto& [name, value] : run.env)
    if (name.rfind("NCCL_", 0) == 0) row.nccl_env[name] = value;

  std::vector<const PhaseResult*> results;  // the transport's own rows, then every other backend's
  for (const auto* rows : {&report.results, &report.backend_results})
    for (const PhaseResult& result : *rows) results.push_back(&result);
  for (const PhaseResult* each : results) {
    const PhaseResult& result = *each;
    if (result.wrong > 0) row.wrong = true;
    if (!result.ran()) continue;  // a backend that did not run this point: no figures to keep
    FigureKey key{to_string(result.phase), result.requested_tokens,        0,
                  to_string(result.mode),  figure_backend(report, result), ""};
    key.statistic = "burst";
    night.figures.push_back(distribution_row(key, result.step_us, "us", result.iterations));
    key.statistic = "op";
    night.figures.push_back(distribution_row(key, result.op_us, "us", result.op_iterations));
    key.statistic = "busbw";
    night.figures.push_back(scalar_row(key, result.busbw_gbps, "GB/s"));
  }
  for (const ServeLevel& level : report.serve.levels) {
    if (level.completed == 0) continue;  // nothing measured at this level
    FigureKey key{"serve", 0, level.concurrency, "", "", ""};
    if (level.tpot_ms) {
      key.statistic = "tpot";
      night.figures.push_back(distribution_row(key, *level.tpot_ms, "ms", level.completed));
    }
    if (level.ttft_ms) {
      key.statistic = "ttft";
      night.figures.push_back(distribution_row(key, *level.ttft_ms, "ms", level.completed));
    }
    key.statistic = "output_throughput";
    FigureRow throughput = scalar_row(key, level.output_tokens_per_s, "tok/s");
    // Throughput is judged with the level's TPOT spread, as `k25comm compare` judges it.
    if (level.tpot_ms && level.tpot_ms->p50 > 0)
      throughput.spread = std::max(level.tpot_ms->p90 / level.tpot_ms->p50 - 1.0, 0.0);
    night.figures.push_back(std::move(throughput));
  }
  // One row per key: a report with two results of one key (never written by k25comm) keeps the first.
  std::vector<FigureRow> unique;
  for (FigureRow& figure : night.figures) {
    const bool seen = std::any_of(unique.begin(), unique.end(),
                                  [&](const FigureRow& other) { return other.key == figure.key; });
    if (!seen) unique.push_back(std::move(figure));
  }
  night.figures = std::move(unique);
  return night;
}

}  // namespace k25
