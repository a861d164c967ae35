// What the serve phase measured: per concurrency level, request outcomes and latency distributions (report
// `serve`).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/stats.hpp"
#include "serve/profile_window.hpp"

namespace k25 {

struct ServeLevel {
  int concurrency = 0;
  int requests = 0;  // counted requests issued (warm-up excluded)
  int completed = 0;
  int failed = 0;
  std::map<std::string, int> errors;  // error class -> count (connect_refused, dns, timeout, http_4xx, ...)
  // Over completed requests; none (null in report.json) when no completed request gave a sample.
  std::optional<Stats> ttft_ms, tpot_ms, itl_ms, e2el_ms;
  double output_tokens_per_s = 0;  // over the level's steady window
  double requests_per_s = 0;
  double window_s = 0;             // length of the steady window
  long long output_tokens = 0;     // counted output tokens of completed requests
  int warmup_requests = 0;         // issued before the level, not counted
  std::string window_kind;         // "steady" or "level_span" (too few requests for a steady window)
  std::string token_count_source;  // this level's: "usage", "max_tokens", "chunks" or "mixed" (TokenSource)
  // Completed requests counted by chunks (no usage, no ignore_eos length end): where any is, TPOT is (partly)
  // time per chunk, not per token, and no attribution is made from it. report.json also writes "tpot_per".
  int chunk_counted = 0;
  // Where token counts are not chunk counts: tokens per content chunk (p50 over requests) and the interval
  // per token after the first chunk ((E2EL - TTFT) / (tokens - tokens of the first chunk)); none otherwise.
  std::optional<double> tokens_per_chunk_p50;
  std::optional<Stats> token_interval_ms;
  std::map<std::string, std::string> error_examples;  // error class -> first message seen
  double duration_s = 0;  // first counted request's start to the last one's end (vllm bench serve's duration)
  std::optional<long long> input_tokens;  // sum of usage.prompt_tokens of completed requests that sent it
  // Stopped by a signal while it ran: its figures are over the requests that finished before (requests),
  // out of planned_requests.
  bool interrupted = false;
  int planned_requests = 0;
  // The level in vllm bench serve's names (its result JSON): completed, duration, total_input_tokens,
  // total_output_tokens, request_throughput, output_throughput, total_token_throughput, and mean_, median_,
  // std_ and pNN_ of ttft_ms, tpot_ms, itl_ms, e2el_ms. A value is null when it has no sample.
  std::map<std::string, std::optional<double>> vllm_bench_serve;
};

// The request outcomes of a level in words: "http_5xx 6 (HTTP 500: injected server failure)".
std::string describe_errors(const ServeLevel& level);

// True where the level's TPOT is (partly) time per chunk: some completed request's token count is its chunk
// count, because the server sent no usage and the request did not end by length with ignore_eos.
bool tpot_per_chunk(const ServeLevel& level);

// True where chunks carry several tokens (tokens_per_chunk_p50 of 1.5 or more): TPOT reads under the
// interval per token and ITL is a gap between chunks; report token_interval_ms beside TPOT.
bool several_tokens_per_chunk(const ServeLevel& level);

struct ServeReport {
  bool ran = false;
  std::string skipped_reason;  // why the phase did not run ("no endpoint configured", ...)
  std::string stopped_reason;  // why it stopped before its last level (a signal); an interrupted level is
                               // kept when requests of it completed (ServeLevel::interrupted)
  std::string endpoint, api, model;
  std::string ttft_definition;     // e.g. "first chunk carrying content"
  std::string token_count_source;  // "usage" (server's completion_tokens), "max_tokens" (ignore_eos and a
                                   // length end), "chunks" (counted), or "mixed"
  std::string e2el_definition;     // e.g. "request start to last chunk carrying content"
  std::string clock;               // where and how times are taken
  int prompt_tokens = 0, max_tokens = 0;
  bool prompt_tokens_approximate = true;  // prompts are built without a tokenizer
  bool ignore_eos = false;
  double request_rate = 0;          // 0: closed loop at fixed concurrency; else Poisson arrivals per second
  std::vector<double> percentiles;  // the pNN of vllm_bench_serve (serve.percentiles)
  std::vector<ServeLevel> levels;
  ServeProfile profile;  // the engine's profiler windows (serve.profile); report.json "profile" when asked
};

void to_json(nlohmann::json& j, const ServeLevel& level);
void from_json(const nlohmann::json& j, ServeLevel& level);
void to_json(nlohmann::json& j, const ServeReport& report);
void from_json(const nlohmann::json& j, ServeReport& report);

}  // namespace k25
