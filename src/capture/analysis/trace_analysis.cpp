// Profiler-trace timelines into figures, step by step: classes, steps, per-rank figures, sizes, per-step
// figures, the join across ranks, and the collectives as records beside the replay.
#include "capture/analysis/trace_analysis.hpp"

#include <algorithm>
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

// The figures of ranks [first, last), on two cores at once (each reads the work and writes its own rank):
// thread t takes ranks first + t, first + t + 2, ... (handed out before the threads start: on a busy machine
// the first thread would take them all while the second is still being started).
std::vector<TraceRankResult> ranks_figures(TraceWork& work, std::size_t first, std::size_t last,
                                           const std::string& step_method) {
  std::vector<TraceRankResult> figures(last - first);
  std::vector<std::exception_ptr> errors(kAnalysisThreads);
  const auto run = [&](std::size_t thread) {
    try {
      for (std::size_t i = first + thread; i < last; i += kAnalysisThreads)
        figures[i - first] = rank_figures(work, work.ranks[i], step_method);
    } catch (...) {
      errors[thread] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < std::min(kAnalysisThreads, last - first); ++t) threads.emplace_back(run, t);
  run(0);
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
  return figures;
}

// The run's kernel time and unclassified kernels, summed in rank order.
void sum_kernel_time(TraceWork& work) {
  for (RankWork& w : work.ranks) {
    work.kernel_time_total += w.kernel_time;
    for (const auto& [name, time] : w.unclassified) {
      work.unclassified[name].first += time.first;
      work.unclassified[name].second += time.second;
    }
  }
}

}  // namespace

TraceAnalysis analyze_trace(TraceCapture trace, const KernelClassifier& classifier,
                            const TraceSettings& settings) {
  TraceAnalysis out;
  TraceResult& r = out.result;
  r = result_start(trace, classifier, settings);
  TraceWork work(std::move(trace), classifier, settings);
  find_steps(work, r);
  // Two ranks at a time: their figures on both cores, then, in rank order, their sizes and per-step figures,
  // and their interval unions (a rank's largest part: about 50 bytes per activity) freed, so that the unions
  // of two ranks are held at once, never every rank's.
  for (std::size_t first = 0; first < work.ranks.size(); first += kAnalysisThreads) {
    const std::size_t last = std::min(first + kAnalysisThreads, work.ranks.size());
    std::vector<TraceRankResult> figures = ranks_figures(work, first, last, r.step_method);
    for (std::size_t i = first; i < last; ++i) {
      RankWork& w = work.ranks[i];
      r.ranks.push_back(std::move(figures[i - first]));
      collective_sizes(work, w, r);
      step_figures(work, w, r);
      r.steps += w.steps.size();
      w.unions = RankUnions{};
    }
  }
  sum_kernel_time(work);
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
