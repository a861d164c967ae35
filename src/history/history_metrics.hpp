// The latest figures of each node in the OpenMetrics text format, for a fleet's Prometheus (node_exporter's
// textfile collector, a Pushgateway): names and labels as Prometheus's naming conventions say, base units
// (seconds, bytes per second), distributions as summaries, ending "# EOF". The text is also valid in
// Prometheus's older text format, which the textfile collector and the Pushgateway read.
#pragma once

#include <string>
#include <vector>

#include "history/history_rows.hpp"

namespace k25 {

// `nights`: one night per node (its latest). Families, each with # TYPE, # UNIT and # HELP:
//   k25comm_<phase>_burst_seconds, k25comm_<phase>_op_seconds (summaries: quantile 0.5, 0.9, 0.99, _sum,
//   _count) and k25comm_<phase>_bus_bandwidth_bytes_per_second (gauge), labels node, tokens, mode, backend;
//   k25comm_serve_tpot_seconds and k25comm_serve_ttft_seconds (summaries),
//   k25comm_serve_output_tokens_per_second (gauge), labels node, concurrency; k25comm_run_info (gauge 1: what
//   the night ran with) and k25comm_run_start_timestamp_seconds, label node.
std::string openmetrics_text(const std::vector<HistoryNight>& nights);

}  // namespace k25
