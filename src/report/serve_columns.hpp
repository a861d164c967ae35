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

}  // namespace k25
