// Profiler-trace timelines into figures, step by step: classes, steps, per-rank figures, sizes, per-step
// figures, the join across ranks, and the collectives as records beside the replay.
#include "capture/analysis/trace_analysis.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

#include <fmt/format.h>

#include "capture/analysis/trace_work.hpp"
#include "common/error.hpp"

namespace k25 {
namespace {

// Ranks whose figures are made at once: both cores.
constexpr std::size_t kAnalysisThreads = 2;

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

// Every rank's figures, on two cores at once (each reads the work and writes its own rank); then the run's
// kernel time and unclassified kernels, summed in rank order.
std::vector<TraceRankResult> ranks_figures(TraceWork& work, const std::string& step_method) {
  std::vector<TraceRankResult> figures(work.ranks.size());
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(kAnalysisThreads);
  const auto run = [&](std::size_t thread) {
    try {
      for (std::size_t i; (i = next++) < work.ranks.size();)
        figures[i] = rank_figures(work, work.ranks[i], step_method);
    } catch (...) {
      errors[thread] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < std::min(kAnalysisThreads, work.ranks.size()); ++t)
    threads.emplace_back(run, t);
  run(0);
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
  for (RankWork& w : work.ranks) {
    work.kernel_time_total += w.kernel_time;
    for (const auto& [name, time] : w.unclassified) {
      work.unclassified[name].first += time.first;
      work.unclassified[name].second += time.second;
    }
  }
  return figures;
}

}  // namespace

TraceAnalysis analyze_trace(TraceCapture trace, const KernelClassifier& classifier,
                            const TraceSettings& settings) {
  TraceAnalysis out;
  TraceResult& r = out.result;
  r = result_start(trace, classifier, settings);
  TraceWork work(std::move(trace), classifier, settings);
  find_steps(work, r);
  std::vector<TraceRankResult> figures = ranks_figures(work, r.step_method);
  for (std::size_t i = 0; i < work.ranks.size(); ++i) {
    RankWork& w = work.ranks[i];
    r.ranks.push_back(std::move(figures[i]));
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
