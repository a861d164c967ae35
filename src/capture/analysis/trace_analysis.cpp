// Profiler-trace timelines into figures, step by step: classes, steps, per-rank figures, sizes, per-step
// figures, the join across ranks, and the collectives as records beside the replay.
#include "capture/analysis/trace_analysis.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "capture/analysis/trace_work.hpp"
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

TraceResult result_start(const TraceCapture& trace, const KernelClassifier& classifier,
                         const TraceSettings& settings) {
  TraceResult r;
  r.present = true;
  r.class_tables = classifier.tables();
  r.step_gap_us = settings.step_gap_us;
  r.notes = trace.notes;
  for (const TraceFile& f : trace.files) {
    if (f.cut) r.notes.push_back(fmt::format("{}: {}", f.path, f.cut_reason));
    for (const std::string& note : f.notes) r.notes.push_back(fmt::format("{}: {}", f.path, note));
  }
  return r;
}

// The CUDA-graph caveat: graph-replayed collectives carry no sizes.
void size_note(const TraceWork& work, TraceResult& r) {
  if (r.sizes_unknown == 0) return;
  r.notes.push_back(fmt::format(
      "{} of {} collective kernels have no size in the trace{}{}", r.sizes_unknown,
      r.sizes_trace + r.sizes_model + r.sizes_unknown,
      work.graph_unknown > 0
          ? fmt::format(" ({} of them replayed by CUDA graphs, whose kernels carry no collective metadata)",
                        work.graph_unknown)
          : " (no c10d record_param_comms args on them, no NCCL NVTX payload)",
      work.settings.model ? "; --model sizes AllReduces only in steps whose mark gives the batch"
                          : "; --model CONFIG sizes AllReduces from each step's batch"));
}

}  // namespace

void check_trace_runs(const TraceCapture& trace) {
  check_world_sizes_and_ranks(trace);
  if (trace.ranks.size() >= 2) check_gpu_times_overlap(trace);
}

TraceAnalysis analyze_trace(TraceCapture trace, const KernelClassifier& classifier,
                            const TraceSettings& settings) {
  TraceAnalysis out;
  TraceResult& r = out.result;
  r = result_start(trace, classifier, settings);
  TraceWork work(std::move(trace), classifier, settings);
  find_steps(work, r);
  for (RankWork& w : work.ranks) {
    r.ranks.push_back(rank_figures(work, w, r.step_method));
    collective_sizes(work, w, r);
    step_figures(work, w, r);
    r.steps += w.steps.size();
  }
  join_ranks(work, r);
  finish_groups(work, r);
  backend_rows(work, r);
  unclassified_kernels(work, r);
  size_note(work, r);
  out.records = trace_records(work, r);
  out.step_method = out.records.ops.empty() ? "" : r.step_method;
  return out;
}

}  // namespace k25
