// TTFT/TPOT/ITL/E2EL distributions, error counts and steady-window throughput of one concurrency level.
#include "serve/level_metrics.hpp"

#include <algorithm>

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

}  // namespace

ServeLevel summarize_level(int concurrency, const std::vector<RequestRecord>& counted,
                           const LevelWindow& window) {
  ServeLevel level;
  level.concurrency = concurrency;
  level.requests = static_cast<int>(counted.size());
  std::vector<double> ttft, tpot, itl, e2el;
  int from_usage = 0, from_chunks = 0;
  for (const RequestRecord& r : counted) {
    if (!r.ok) {
      ++level.failed;
      ++level.errors[r.error_class];
      level.error_examples.try_emplace(r.error_class, r.error_message);
      continue;
    }
    ++level.completed;
    (r.usage_tokens ? from_usage : from_chunks) += 1;
    const long long tokens = r.output_tokens();
    level.output_tokens += tokens;
    if (r.content_times.empty()) continue;
    const double first = ms_between(r.start, r.content_times.front());
    const double last = ms_between(r.start, r.content_times.back());
    ttft.push_back(first);
    e2el.push_back(last);
    for (std::size_t i = 1; i < r.content_times.size(); ++i)
      itl.push_back(ms_between(r.content_times[i - 1], r.content_times[i]));
    if (tokens > 1) tpot.push_back((last - first) / static_cast<double>(tokens - 1));
  }
  level.token_count_source = from_usage > 0 && from_chunks > 0 ? "mixed"
                             : from_chunks > 0                 ? "chunks"
                                                               : "usage";
  level.ttft_ms = summarize(std::move(ttft));
  level.tpot_ms = summarize(std::move(tpot));
  level.itl_ms = summarize(std::move(itl));
  level.e2el_ms = summarize(std::move(e2el));

  if (counted.empty()) return level;
  WindowCount inside = count_inside(counted, window.begin, window.end, /*include_begin=*/false);
  double seconds = s_between(window.begin, window.end);
  level.window_kind = "steady";
  if (inside.completions < concurrency || seconds <= 0) {
    SteadyTime span_begin = counted.front().start, span_end = counted.front().end;
    for (const RequestRecord& r : counted) {
      span_begin = std::min(span_begin, r.start);
      span_end = std::max(span_end, r.end);
    }
    inside = count_inside(counted, span_begin, span_end, /*include_begin=*/true);
    seconds = s_between(span_begin, span_end);
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
