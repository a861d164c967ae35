// Refusing trace files that are not of one run.
#include "capture/readers/trace_runs.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "common/error.hpp"

namespace k25 {
namespace {

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

// "FILE" or "FILE (PROCESS)", for messages.
std::string who(const TraceCapture& trace, const TraceRank& r) {
  const TraceFile& f = trace.files[r.file];
  return r.process.empty() || r.process == file_name(f.path) ? f.path
                                                             : fmt::format("{} ({})", f.path, r.process);
}

void check_world_sizes_and_ranks(const TraceCapture& trace) {
  const TraceRank* sized = nullptr;
  for (const TraceRank& r : trace.ranks) {
    if (r.world_size == 0) continue;
    if (sized && sized->world_size != r.world_size)
      throw UsageError(fmt::format("files of different runs: {} has world size {}, {} has {}",
                                   who(trace, *sized), sized->world_size, who(trace, r), r.world_size));
    if (!sized) sized = &r;
  }
  std::map<int, const TraceRank*> claimed;
  for (const TraceRank& r : trace.ranks) {
    const auto [it, inserted] = claimed.emplace(r.rank, &r);
    if (!inserted)
      throw UsageError(
          fmt::format("{} and {} both claim rank {} (from {}): give one file per rank of one run",
                      who(trace, *it->second), who(trace, r), r.rank, r.rank_source));
  }
}

// Ranks of one run are traced together: their GPU times overlap (within a minute at least).
void check_gpu_times_overlap(const TraceCapture& trace) {
  std::vector<std::pair<std::int64_t, std::int64_t>> span(trace.ranks.size(), {INT64_MAX, INT64_MIN});
  for (const GpuActivity& a : trace.activities) {
    span[a.rank].first = std::min(span[a.rank].first, a.start_ns);
    span[a.rank].second = std::max(span[a.rank].second, a.end_ns);
  }
  std::size_t longest = 0;
  for (std::size_t i = 0; i < span.size(); ++i)
    if (span[i].second - span[i].first > span[longest].second - span[longest].first) longest = i;
  constexpr std::int64_t kSlack = 60'000'000'000;
  for (std::size_t i = 0; i < span.size(); ++i) {
    if (!trace.ranks[i].absolute_clock || !trace.ranks[longest].absolute_clock ||
        span[i].first > span[i].second)
      continue;
    if (span[i].first > span[longest].second + kSlack || span[i].second + kSlack < span[longest].first)
      throw UsageError(fmt::format(
          "files of different runs: the GPU times of {} and {} are {:.1f} s apart (ranks of one run are traced together)",
          who(trace, trace.ranks[longest]), who(trace, trace.ranks[i]),
          static_cast<double>(
              std::max(span[i].first - span[longest].second, span[longest].first - span[i].second)) /
              1e9));
  }
}

}  // namespace

void check_trace_runs(const TraceCapture& trace) {
  check_world_sizes_and_ranks(trace);
  if (trace.ranks.size() >= 2) check_gpu_times_overlap(trace);
}

}  // namespace k25
