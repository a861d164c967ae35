// Finding a rank's steps: its engine's marks, the pattern of its collectives, or its GPU's idle gaps.
#include "capture/analysis/trace_steps.hpp"

#include <algorithm>
#include <map>

namespace k25 {

std::vector<TraceStep> steps_from_marks(const std::vector<const StepMark*>& marks, const NameTable& names,
                                        std::optional<MarkFamily>& family,
                                        std::vector<std::uint32_t>& without_work) {
  std::map<MarkFamily, std::vector<std::pair<const StepMark*, ParsedStepMark>>> by_family;
  std::map<MarkFamily, std::vector<std::uint32_t>> idle;  // marks that launched nothing, by family
  for (const StepMark* mark : marks)
    if (const auto parsed = parse_step_mark(names[mark->name])) {
      if (mark->has_window)
        by_family[parsed->family].emplace_back(mark, *parsed);
      else
        idle[parsed->family].push_back(mark->name);
    }
  family.reset();
  std::size_t most = 0;
  for (const auto& [f, list] : by_family)
    if (!is_iteration_family(f) && list.size() > most) {
      most = list.size();
      family = f;
    }
  for (const auto& [f, list] : by_family)
    if (!family && is_iteration_family(f)) family = f;
  without_work.clear();
  for (const auto& [f, list] : idle)
    if (family ? f == *family : !is_iteration_family(f))
      without_work.insert(without_work.end(), list.begin(), list.end());
  std::vector<TraceStep> steps;
  if (!family) return steps;
  for (const auto& [mark, parsed] : by_family[*family]) {
    TraceStep step;
    step.start_ns = mark->gpu_start_ns;
    step.end_ns = mark->gpu_end_ns;
    step.phase = parsed.phase;
    step.batch = parsed.batch;
    step.tokens = parsed.tokens;
    step.mark = mark->name;
    if (!mark->gpu_side) step.host_ns = mark->host_end_ns - mark->host_start_ns;
    steps.push_back(step);
  }
  std::stable_sort(steps.begin(), steps.end(),
                   [](const TraceStep& a, const TraceStep& b) { return a.start_ns < b.start_ns; });
  return steps;
}

std::vector<TraceStep> steps_from_comm_pattern(const std::vector<CommKernel>& comm,
                                               const std::vector<std::string>& kinds, const StepHints& hints,
                                               std::optional<std::uint64_t> bytes_per_token,
                                               std::string& reason) {
  CommunicatorOps ops;
  ops.n_ranks = 1;
  std::vector<std::uint64_t> ordinal(kinds.size(), 0);
  for (const CommKernel& k : comm) {
    JoinedOp op;
    op.kind = k.kind;
    op.sn = ordinal[k.kind]++;
    op.bytes = k.bytes;
    op.exec_us = static_cast<double>(k.end_ns - k.start_ns) / 1000.0;
    op.ranks_present = 1;
    ops.sequence.push_back(static_cast<std::uint32_t>(ops.ops.size()));
    ops.ops.push_back(op);
  }
  const StepDetection d = detect_steps(ops, kinds, hints);
  std::vector<TraceStep> steps;
  if (!d.found) {
    reason = d.reason;
    return steps;
  }
  for (const DetectedStep& s : d.steps) {
    TraceStep step;
    step.start_ns = s.first > 0 ? comm[s.first - 1].end_ns : comm[s.first].start_ns;
    step.end_ns = comm[s.last].end_ns;
    // Decode only where its batch says so (the size through --model); prefill by its size.
    step.phase = s.prefill ? StepPhase::prefill : StepPhase::unknown;
    if (bytes_per_token && *bytes_per_token > 0 && s.bytes > 0 && s.bytes % *bytes_per_token == 0 &&
        s.bytes / *bytes_per_token < (1u << 30)) {
      step.tokens = static_cast<int>(s.bytes / *bytes_per_token);
      if (!s.prefill) {
        step.batch = step.tokens;
        step.phase = StepPhase::decode;
      }
    }
    steps.push_back(step);
  }
  return steps;
}

std::vector<TraceStep> steps_from_idle_gaps(const MergedIntervals& busy, std::int64_t gap_ns) {
  std::vector<TraceStep> steps;
  for (const Interval& i : busy.intervals()) {
    if (!steps.empty() && i.start - steps.back().end_ns < gap_ns) {
      steps.back().end_ns = i.end;
      continue;
    }
    TraceStep step;
    step.start_ns = i.start;
    step.end_ns = i.end;
    steps.push_back(step);
  }
  return steps;
}

}  // namespace k25
