// Reduction of one concurrency level's request records to the report's ServeLevel (pure: no clock, no I/O).
#pragma once

#include <string>
#include <vector>

#include "serve/request_record.hpp"
#include "serve/serve_result.hpp"

namespace k25 {

// The interval over which throughput is measured. It begins at the first completion (from then on requests
// end and start as they will for the rest of the level) and ends, closed loop, at the first completion that
// no new request replaced, or, with Poisson arrivals, at the last arrival. The client sets it.
struct LevelWindow {
  SteadyTime begin{}, end{};
};

// Per request, for completed requests only:
//   TTFT = first content chunk - start; E2EL = last content chunk - start;
//   ITL  = gaps between consecutive content chunks;
//   TPOT = (E2EL - TTFT) / (output_tokens - 1), when output_tokens > 1.
// output_tokens as RequestRecord::output_tokens counts them (usage, else max_tokens of an ignore_eos request
// that ended by length, else chunks); token_count_source and chunk_counted say which.
// Where the token count is not the chunk count: tokens_per_chunk_p50 (output_tokens / content chunks per
// request) and token_interval_ms = (E2EL - TTFT) / (output_tokens - output_tokens / chunks), the interval per
// token of the chunks after the first (TPOT divides by output_tokens - 1 and so reads low where the first
// chunk carries several tokens).
// Throughput counts the output tokens of completed requests whose chunks arrived inside the window (a chunk
// is worth output_tokens / content_chunks tokens) and the completions after its begin, up to its end. When
// fewer than `concurrency` requests completed inside the window (too few requests for a steady state), both
// use the whole level span (first start to last end) instead and window_kind says "level_span".
// Distributions without a sample (no request completed) are left empty, never zero. vllm_bench_serve holds
// the same figures under vllm bench serve's names, over the level span (its "duration"), with the pNN of
// `percentiles` (e.g. {50, 90, 99}).
ServeLevel summarize_level(int concurrency, const std::vector<RequestRecord>& counted,
                           const LevelWindow& window, const std::vector<double>& percentiles = {99});

// "p99", "p99.9": the name vllm bench serve gives a percentile.
std::string percentile_name(double percentile);

}  // namespace k25
