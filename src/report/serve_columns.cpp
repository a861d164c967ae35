// The column list of a serve level in vllm bench serve's words.
#include "report/serve_columns.hpp"

#include <fmt/format.h>

#include "serve/level_metrics.hpp"

namespace k25 {
namespace {

// A figure of level.vllm_bench_serve by its name there; "-" where it has no sample.
Column<ServeLevel> metric(std::string header, std::string unit, std::string name, bool count,
                          std::string group = {}) {
  Column<ServeLevel> column{std::move(header), std::move(unit)};
  column.key = name;
  column.group = std::move(group);
  column.cell = [name, count](const ServeLevel& level) {
    const auto found = level.vllm_bench_serve.find(name);
    if (found == level.vllm_bench_serve.end() || !found->second) return TableCell("-");
    return count ? TableCell::count(*found->second) : TableCell::number(*found->second);
  };
  return column;
}

}  // namespace

Columns<ServeLevel> vllm_metric_columns(const std::vector<double>& percentiles) {
  Columns<ServeLevel> columns = {
      metric("Successful requests", "", "completed", true),
      metric("Benchmark duration", "s", "duration", false),
      metric("Total input tokens", "", "total_input_tokens", true),
      metric("Total generated tokens", "", "total_output_tokens", true),
      metric("Request throughput, whole level", "req/s", "request_throughput", false),
      metric("Output token throughput, whole level", "tok/s", "output_throughput", false),
      metric("Total token throughput, whole level", "tok/s", "total_token_throughput", false),
  };
  for (const auto& [label, name] : std::vector<std::pair<std::string, std::string>>{
           {"TTFT", "ttft"}, {"TPOT", "tpot"}, {"ITL", "itl"}, {"E2EL", "e2el"}}) {
    columns.push_back(metric("Mean " + label, "ms", fmt::format("mean_{}_ms", name), false, label));
    columns.push_back(metric("Median " + label, "ms", fmt::format("median_{}_ms", name), false, label));
    for (const double p : percentiles) {
      const std::string pname = percentile_name(p);
      columns.push_back(metric(fmt::format("P{} {}", pname.substr(1), label), "ms",
                               fmt::format("{}_{}_ms", pname, name), false, label));
    }
  }
  return columns;
}

}  // namespace k25
