// The column list of a serve level in vllm bench serve's words.
#include "report/serve_columns.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "serve/level_metrics.hpp"

namespace k25 {
namespace {

// What a figure that counts output tokens shows where a level counted them in chunks (tpot_per_chunk): the
// unit said in the cell ("639.8 chunks/s"), or nothing where a figure mixes tokens and chunks.
enum class InChunks { not_counted, chunks, per_s, per_chunk, withheld };

TableCell chunk_cell(double value, InChunks in_chunks) {
  switch (in_chunks) {
    case InChunks::chunks:
      return TableCell::figure(value, with_thousands(value) + " chunks");
    case InChunks::per_s:
      return TableCell::figure(value, readable_number(value) + " chunks/s");
    case InChunks::per_chunk:
      return TableCell::figure(value, readable_number(value) + " per chunk");
    case InChunks::withheld:
      return TableCell::figure(std::nullopt, "- (chunks)");
    case InChunks::not_counted:
      break;
  }
  return TableCell::number(value);
}

// A figure of level.vllm_bench_serve by its name there; "-" where it has no sample.
Column<ServeLevel> metric(std::string header, std::string unit, std::string name, bool count,
                          std::string group = {}, InChunks in_chunks = InChunks::not_counted) {
  Column<ServeLevel> column{std::move(header), std::move(unit)};
  column.key = name;
  column.group = std::move(group);
  column.cell = [name, count, in_chunks](const ServeLevel& level) {
    const auto found = level.vllm_bench_serve.find(name);
    if (found == level.vllm_bench_serve.end() || !found->second) return TableCell("-");
    if (in_chunks != InChunks::not_counted && tpot_per_chunk(level))
      return chunk_cell(*found->second, in_chunks);
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
      metric("Total generated tokens", "", "total_output_tokens", true, {}, InChunks::chunks),
      metric("Request throughput, whole level", "req/s", "request_throughput", false),
      metric("Output token throughput, whole level", "tok/s", "output_throughput", false, {},
             InChunks::per_s),
      metric("Total token throughput, whole level", "tok/s", "total_token_throughput", false, {},
             InChunks::withheld),
  };
  for (const auto& [label, name] : std::vector<std::pair<std::string, std::string>>{
           {"TTFT", "ttft"}, {"TPOT", "tpot"}, {"ITL", "itl"}, {"E2EL", "e2el"}}) {
    const InChunks in_chunks = name == "tpot" ? InChunks::per_chunk : InChunks::not_counted;
    columns.push_back(
        metric("Mean " + label, "ms", fmt::format("mean_{}_ms", name), false, label, in_chunks));
    columns.push_back(
        metric("Median " + label, "ms", fmt::format("median_{}_ms", name), false, label, in_chunks));
    for (const double p : percentiles) {
      const std::string pname = percentile_name(p);
      columns.push_back(metric(fmt::format("P{} {}", pname.substr(1), label), "ms",
                               fmt::format("{}_{}_ms", pname, name), false, label, in_chunks));
    }
  }
  return columns;
}

TableCell tpot_cell(const ServeLevel& level, double Stats::*figure) {
  if (!level.tpot_ms) return TableCell("-");
  const double value = (*level.tpot_ms).*figure;
  return tpot_per_chunk(level) ? chunk_cell(value, InChunks::per_chunk) : TableCell::number(value);
}

TableCell steady_output_cell(const ServeLevel& level) {
  if (level.completed == 0) return TableCell("-");
  return tpot_per_chunk(level) ? chunk_cell(level.output_tokens_per_s, InChunks::per_s)
                               : TableCell::number(level.output_tokens_per_s);
}

Columns<ServeLevel> with_chunk_sizes(Columns<ServeLevel> columns, const std::vector<ServeLevel>& levels) {
  if (std::none_of(levels.begin(), levels.end(), several_tokens_per_chunk)) return columns;
  const auto after = std::find_if(columns.begin(), columns.end(),
                                  [](const Column<ServeLevel>& c) { return c.header == "TPOT p90"; });
  using L = const ServeLevel&;
  const Columns<ServeLevel> sizes = {
      {"per token after the 1st chunk p50", "",
       [](L l) {
         return l.token_interval_ms ? TableCell::number(l.token_interval_ms->p50) : TableCell("-");
       }},
      {"tokens a chunk p50", "",
       [](L l) {
         return l.tokens_per_chunk_p50 ? TableCell::number(*l.tokens_per_chunk_p50) : TableCell("-");
       }},
  };
  columns.insert(after == columns.end() ? after : after + 1, sizes.begin(), sizes.end());
  return columns;
}

}  // namespace k25
