// TTFT/TPOT/ITL/E2EL distributions, error counts and steady-window throughput of one concurrency level.
#include "serve/level_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

namespace k25 {
namespace {

double ms_between(SteadyTime from, SteadyTime to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}
double s_between(SteadyTime from, SteadyTime to) {
  return std::chrono::duration<double>(to - from).count();
}

struct WindowCount {
  double tokens = 0;
  int completions = 0;
};

// Tokens of chunks in [begin, end]; completions in (begin, end] (the one that opens the window is not
// inside).
WindowCount count_inside(const std::vector<RequestRecord>& records, SteadyTime begin, SteadyTime end,
                         bool include_begin) {
  WindowCount count;
  for (const RequestRecord& r : records) {
    if (!r.ok || r.content_times.empty()) continue;
    const double per_chunk =
        static_cast<double>(r.output_tokens()) / static_cast<double>(r.content_times.size());
    for (const SteadyTime t : r.content_times)
      if (t >= begin && t <= end) count.tokens += per_chunk;
    if ((r.end > begin || (include_begin && r.end == begin)) && r.end <= end) ++count.completions;
  }
  return count;
}

// mean_, median_, std_ (population, as numpy's) and pNN_ of one latency in vllm bench serve's names; null
// when there is no sample.
void add_latency_metrics(std::map<std::string, std::optional<double>>& metrics, const std::string& name,
                         std::vector<double> samples, const std::vector<double>& percentiles) {
  std::sort(samples.begin(), samples.end());
  const bool any = !samples.empty();
  const double count = static_cast<double>(samples.size());
  const double mean = any ? std::accumulate(samples.begin(), samples.end(), 0.0) / count : 0.0;
  double squares = 0;
  for (const double value : samples) squares += (value - mean) * (value - mean);
  const auto value_if_any = [any](double value) { return any ? std::optional<double>(value) : std::nullopt; };
  metrics["mean_" + name + "_ms"] = value_if_any(mean);
  metrics["median_" + name + "_ms"] = value_if_any(percentile(samples, 0.5));
  metrics["std_" + name + "_ms"] = value_if_any(any ? std::sqrt(squares / count) : 0.0);
  for (const double p : percentiles)
    metrics[percentile_name(p) + "_" + name + "_ms"] = value_if_any(percentile(samples, p / 100.0));
}

// Tokens per content chunk and the interval per token of the completed requests whose token count is not
// their chunk count: a request of n tokens in k chunks carries n / k a chunk, and its chunks after the first
// carry n - n / k tokens over E2EL - TTFT.
struct ChunkSizes {
  std::vector<double> tokens_per_chunk, token_interval_ms;
};
ChunkSizes chunk_sizes(const std::vector<RequestRecord>& counted) {
  ChunkSizes sizes;
  for (const RequestRecord& r : counted) {
    if (!r.ok || r.content_times.empty() || r.token_source() == TokenSource::chunks) continue;
    const double chunks = static_cast<double>(r.content_times.size());
    const double per_chunk = static_cast<double>(r.output_tokens()) / chunks;
    sizes.tokens_per_chunk.push_back(per_chunk);
    const double after_first = static_cast<double>(r.output_tokens()) - per_chunk;
    if (r.content_times.size() > 1 && after_first > 0)
      sizes.token_interval_ms.push_back(ms_between(r.content_times.front(), r.content_times.back()) /
                                        after_first);
  }
  return sizes;
}

}  // namespace

std::string percentile_name(double percentile) {
  return fmt::format("p{:g}", percentile);
}

ServeLevel summarize_level(int concurrency, const std::vector<RequestRecord>& counted,
                           const LevelWindow& window, const std::vector<double>& percentiles) {
  ServeLevel level;
  level.concurrency = concurrency;
  level.requests = static_cast<int>(counted.size());
  std::vector<double> ttft, tpot, itl, e2el;
  std::map<TokenSource, int> sources;  // completed requests by where their token count came from
  long long prompt_tokens = 0;
  bool prompt_tokens_sent = false;
  for (const RequestRecord& r : counted) {
    if (!r.ok) {
      ++level.failed;
      ++level.errors[r.error_class];
      level.error_examples.try_emplace(r.error_class, r.error_message);
      continue;
    }
    ++level.completed;
    ++sources[r.token_source()];
    const long long tokens = r.output_tokens();
    level.output_tokens += tokens;
    if (r.usage_prompt_tokens) {
      prompt_tokens += *r.usage_prompt_tokens;
      prompt_tokens_sent = true;
    }
    if (r.content_times.empty()) continue;
    const double first = ms_between(r.start, r.content_times.front());
    const double last = ms_between(r.start, r.content_times.back());
    ttft.push_back(first);
    e2el.push_back(last);
    for (std::size_t i = 1; i < r.content_times.size(); ++i)
      itl.push_back(ms_between(r.content_times[i - 1], r.content_times[i]));
    if (tokens > 1) tpot.push_back((last - first) / static_cast<double>(tokens - 1));
  }
  level.token_count_source = sources.size() > 1    ? "mixed"
                             : sources.size() == 1 ? to_string(sources.begin()->first)
                                                   : "usage";
  level.chunk_counted = sources[TokenSource::chunks];
  if (prompt_tokens_sent) level.input_tokens = prompt_tokens;
  std::map<std::string, std::optional<double>>& vllm = level.vllm_bench_serve;
  add_latency_metrics(vllm, "ttft", ttft, percentiles);
  add_latency_metrics(vllm, "tpot", tpot, percentiles);
  add_latency_metrics(vllm, "itl", itl, percentiles);
  add_latency_metrics(vllm, "e2el", e2el, percentiles);
  level.ttft_ms = summarize_if_any(std::move(ttft));
  level.tpot_ms = summarize_if_any(std::move(tpot));
  level.itl_ms = summarize_if_any(std::move(itl));
  level.e2el_ms = summarize_if_any(std::move(e2el));
  ChunkSizes sizes = chunk_sizes(counted);
  if (const auto per_chunk = summarize_if_any(std::move(sizes.tokens_per_chunk)))
    level.tokens_per_chunk_p50 = per_chunk->p50;
  level.token_interval_ms = summarize_if_any(std::move(sizes.token_interval_ms));

  vllm["completed"] = level.completed;
  vllm["total_output_tokens"] = static_cast<double>(level.output_tokens);
  vllm["total_input_tokens"] =
      level.input_tokens ? std::optional<double>(static_cast<double>(*level.input_tokens)) : std::nullopt;
  vllm["duration"] = std::nullopt;
  vllm["request_throughput"] = std::nullopt;
  vllm["output_throughput"] = std::nullopt;
  vllm["total_token_throughput"] = std::nullopt;
  if (counted.empty()) return level;
  SteadyTime first_start = counted.front().start, last_end = counted.front().end;
  for (const RequestRecord& r : counted) {
    first_start = std::min(first_start, r.start);
    last_end = std::max(last_end, r.end);
  }
  level.duration_s = s_between(first_start, last_end);
  if (level.duration_s > 0) {
    vllm["duration"] = level.duration_s;
    vllm["request_throughput"] = level.completed / level.duration_s;
    vllm["output_throughput"] = static_cast<double>(level.output_tokens) / level.duration_s;
    if (level.input_tokens)
      vllm["total_token_throughput"] =
          static_cast<double>(*level.input_tokens + level.output_tokens) / level.duration_s;
  }
  WindowCount inside = count_inside(counted, window.begin, window.end, /*include_begin=*/false);
  double seconds = s_between(window.begin, window.end);
  level.window_kind = "steady";
  if (inside.completions < concurrency || seconds <= 0) {
    inside = count_inside(counted, first_start, last_end, /*include_begin=*/true);
    seconds = level.duration_s;
    level.window_kind = "level_span";
  }
  level.window_s = seconds;
  if (seconds > 0) {
    level.output_tokens_per_s = inside.tokens / seconds;
    level.requests_per_s = static_cast<double>(inside.completions) / seconds;
  }
  return level;
}

}  // namespace k25
