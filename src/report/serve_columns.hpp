// A serve level's figures in vllm bench serve's words (ServeLevel::vllm_bench_serve): one column list that
// report.md shows as a table (a line per figure, a column per concurrency) and the console as one line per
// level, so both show the same figures, every asked percentile included.
#pragma once

#include <string>
#include <vector>

#include "common/column_table.hpp"
#include "serve/serve_result.hpp"

namespace k25 {

// Completed, duration, token totals, throughputs over the whole level, then mean, median and each of
// `percentiles` (pNN) of TTFT, TPOT, ITL and E2EL. Counts are integers; a figure without a sample is "-".
Columns<ServeLevel> vllm_metric_columns(const std::vector<double>& percentiles);

// report.md's serve table, where a level counted its output tokens in chunks: TPOT "48.00 per chunk", the
// steady throughput "639.8 chunks/s" (tpot_per_chunk).
TableCell tpot_cell(const ServeLevel& level, double Stats::*figure);
TableCell steady_output_cell(const ServeLevel& level);
// `columns` with, after "TPOT p90", the interval per token after the first chunk (p50) and the tokens a
// chunk carries (p50), where a level's chunks carry several tokens (several_tokens_per_chunk).
Columns<ServeLevel> with_chunk_sizes(Columns<ServeLevel> columns, const std::vector<ServeLevel>& levels);

}  // namespace k25
