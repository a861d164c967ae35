// The trace analysis's step method, one for the run: the engine's marks where any rank has them, else the
// repeating pattern of each rank's collectives, else (per rank, with its figures) the GPU's idle gaps.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "capture/analysis/trace_work.hpp"

namespace k25 {
namespace {

// Steps from the collectives' pattern on every rank that has collectives; false where no rank has one.
bool steps_from_patterns(TraceWork& work, TraceResult& r) {
  const StepHints hints =
      step_hints(work.settings.model, work.settings.prefill_factor, work.settings.prefill_tokens);
  std::optional<std::uint64_t> bytes_per_token;
  if (work.settings.model) bytes_per_token = work.settings.model->bytes_per_token();
  std::size_t ranks_with_pattern = 0;
  std::string reason;
  for (RankWork& w : work.ranks) {
    std::vector<CommKernel> comm;
    for (std::uint32_t i : w.comm) {
      const GpuActivity& a = work.trace.activities[i];
      comm.push_back({a.start_ns, a.end_ns, work.classes.kind_of(a), a.bytes});
    }
    if (comm.empty()) continue;
    w.steps = steps_from_comm_pattern(comm, work.classes.kinds(), hints, bytes_per_token, w.pattern_reason);
    if (!w.steps.empty()) ++ranks_with_pattern;
    if (reason.empty()) reason = w.pattern_reason;
  }
  if (ranks_with_pattern > 0) {
    r.step_method = "comm_pattern";
    r.step_method_detail = fmt::format(
        "no step marks in the trace: the repeating pattern of each rank's collectives on {} of {} rank(s)",
        ranks_with_pattern, work.ranks.size());
    return true;
  }
  r.step_method = "gpu_idle_gaps";
  r.step_method_detail = fmt::format(
      "no step marks, {}: the GPU's busy stretches between idle gaps of at least {:g} us (--step-gap-us)",
      reason.empty() ? "no collectives" : "no pattern of collectives (" + reason + ")",
      work.settings.step_gap_us);
  return false;
}

// Marks that launched no GPU work: counted and said per rank, never a step.
void marks_without_work(const TraceWork& work, TraceResult& r) {
  for (const RankWork& w : work.ranks) {
    if (w.marks_without_work.empty()) continue;
    r.marks_without_gpu_work += w.marks_without_work.size();
    std::vector<std::string> names;
    for (std::size_t i = 0; i < w.marks_without_work.size() && i < 3; ++i)
      names.push_back(work.trace.names[w.marks_without_work[i]]);
    if (w.marks_without_work.size() > 3) names.push_back("...");
    r.notes.push_back(fmt::format("rank {}: {} step mark(s) launched no GPU work ({}): counted, not steps",
                                  work.trace.ranks[w.index].rank, w.marks_without_work.size(),
                                  fmt::join(names, ", ")));
  }
}

}  // namespace

void find_steps(TraceWork& work, TraceResult& r) {
  std::set<MarkFamily> families;
  std::size_t ranks_with_marks = 0;
  for (RankWork& w : work.ranks) {
    w.steps = steps_from_marks(w.marks, work.trace.names, w.family, w.marks_without_work);
    if (w.family) {
      families.insert(*w.family);
      ++ranks_with_marks;
    }
  }
  marks_without_work(work, r);
  if (ranks_with_marks == 0) {
    steps_from_patterns(work, r);
    return;
  }
  r.step_method = "engine_marks";
  std::vector<std::string> names;
  for (MarkFamily f : families) names.push_back(to_string(f));
  const bool iterations = std::all_of(families.begin(), families.end(), is_iteration_family);
  r.step_method_detail =
      iterations
          ? fmt::format(
                "no step marks: the host's training iterations ({}s: each one's GPU work, launched on any thread) on {} of {} rank(s)",
                fmt::join(names, " and "), ranks_with_marks, work.ranks.size())
          : fmt::format("{} marks on {} of {} rank(s)", fmt::join(names, " and "), ranks_with_marks,
                        work.ranks.size());
  if (ranks_with_marks < work.ranks.size())
    r.notes.push_back(fmt::format("{} rank(s) have no step marks: their figures are whole-trace only",
                                  work.ranks.size() - ranks_with_marks));
}

}  // namespace k25
