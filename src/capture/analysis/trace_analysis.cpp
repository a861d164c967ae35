// Profiler-trace timelines into figures, step by step: classes, steps, per-rank figures, sizes, per-step
// figures, the join across ranks, and the collectives as records beside the replay.
#include "capture/analysis/trace_analysis.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "capture/analysis/trace_work.hpp"
#include "common/error.hpp"

namespace k25 {
namespace {

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
