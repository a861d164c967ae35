// The trace's answer in words, from its over-all-ranks step groups.
#include "capture/render/trace_headline.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "capture/model/step_marks.hpp"

namespace k25 {
namespace {

// Milliseconds from 1 ms up, microseconds below.
std::string duration(double us) {
  return us >= 1000.0 ? fmt::format("{:.2f} ms", us / 1000.0) : fmt::format("{:.1f} us", us);
}

// "1 step", "p50 of 3 steps", "p50 of 24 steps over 8 ranks".
std::string steps_text(const TraceStepGroup& g, std::size_t ranks) {
  if (g.steps == 1) return "1 step";
  return fmt::format("p50 of {} steps{}", g.steps, ranks > 1 ? fmt::format(" over {} ranks", ranks) : "");
}

// The GPU's idle share over the whole span of every rank's trace (first to last activity): what steps cut at
// idle gaps leave out.
std::string whole_span_idle(const TraceResult& trace) {
  double span = 0, busy = 0;
  for (const TraceRankResult& r : trace.ranks) {
    span += r.span_us;
    busy += r.gpu_busy_us;
  }
  if (span <= 0) return "";
  return fmt::format(", {:.1f} % of the whole span ({})", 100.0 * (span - busy) / span,
                     duration(span / static_cast<double>(trace.ranks.size())));
}

// The classes other than communication, largest share first, and the GPU's idle share (of the steps; with
// steps cut at idle gaps, also of the whole span, which those steps leave out).
std::string class_parts(const TraceResult& trace, const TraceStepGroup& g) {
  std::vector<const TraceClassShare*> classes;
  for (const TraceClassShare& c : g.classes)
    if (c.cls != "communication" && c.share >= 0.0005) classes.push_back(&c);
  std::stable_sort(classes.begin(), classes.end(),
                   [](const TraceClassShare* a, const TraceClassShare* b) { return a->share > b->share; });
  std::vector<std::string> parts;
  for (const TraceClassShare* c : classes) {
    const auto info = std::find_if(kKernelClasses.begin(), kKernelClasses.end(),
                                   [&](const KernelClassInfo& i) { return c->cls == i.key; });
    parts.push_back(
        fmt::format("{} {:.1f} %", info == kKernelClasses.end() ? c->cls : info->title, 100.0 * c->share));
  }
  if (g.wall_us.p50 > 0)
    parts.push_back(trace.step_method == "gpu_idle_gaps"
                        ? fmt::format("GPU idle {:.1f} % of the steps{}",
                                      100.0 * g.idle_us.p50 / g.wall_us.p50, whole_span_idle(trace))
                        : fmt::format("GPU idle {:.1f} %", 100.0 * g.idle_us.p50 / g.wall_us.p50));
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string group_line(const TraceResult& trace, const TraceStepGroup& g) {
  std::string line = fmt::format(
      "{}: {} ({}); communication {} = {:.1f} % of the wall, {:.1f} % of kernel time (exposed {} = {:.1f} % of the wall)",
      step_title(g, trace.step_method), duration(g.wall_us.p50),
      steps_text(g, trace.ranks.size()) + (trace.step_method == "gpu_idle_gaps"
                                               ? fmt::format(", gaps of {:g} us or more", trace.step_gap_us)
                                               : ""),
      duration(g.comm_merged_us.p50), 100.0 * g.comm_share, 100.0 * g.comm_kernel_share,
      duration(g.comm_exposed_us.p50), 100.0 * g.exposed_share);
  std::vector<std::string> kinds;
  for (const TraceKindShare& k : g.kinds)
    kinds.push_back(fmt::format("{} {:g} x {:.1f} us", k.kind, k.ops_per_step, k.op_us.p50));
  if (!kinds.empty()) line += ": " + fmt::format("{}", fmt::join(kinds, ", "));
  const std::string parts = class_parts(trace, g);
  if (!parts.empty()) line += "; " + parts;
  return line;
}

// Whether the trace's steps are an engine's that say their phase, none of them decode.
bool no_decode_step(const std::vector<const TraceStepGroup*>& groups) {
  return !groups.empty() && std::none_of(groups.begin(), groups.end(), [](const TraceStepGroup* g) {
    return g->phase == "decode";
  }) && std::any_of(groups.begin(), groups.end(), [](const TraceStepGroup* g) {
    return g->phase == "prefill" || g->phase == "mixed";
  });
}

}  // namespace

std::vector<const TraceStepGroup*> headline_groups(const TraceResult& trace, std::size_t max_lines) {
  std::vector<const TraceStepGroup*> groups;
  for (const TraceStepGroup& g : trace.groups)
    if (!g.rank) groups.push_back(&g);
  std::stable_sort(groups.begin(), groups.end(), [](const TraceStepGroup* a, const TraceStepGroup* b) {
    if (phase_order(a->phase) != phase_order(b->phase)) return phase_order(a->phase) < phase_order(b->phase);
    return a->steps > b->steps;
  });
  if (groups.size() > max_lines) groups.resize(max_lines);
  return groups;
}

std::string step_title(const TraceStepGroup& g, const std::string& step_method) {
  const std::string batch = g.batch ? fmt::format(" at batch {}", *g.batch) : "";
  if (g.phase == "unknown") {  // torch's ProfilerStep marks say no phase: a training step
    if (step_method == "engine_marks") return "step" + batch;
    // No marks: the GPU's busy stretches, which say nothing of the program's steps.
    if (step_method == "gpu_idle_gaps") return "step cut at GPU idle gaps (no step marks)" + batch;
    return "step (phase unknown)" + batch;
  }
  if (g.phase != "decode" && g.tokens)
    return fmt::format("{} of {} tokens{}", g.phase, *g.tokens,
                       g.batch ? fmt::format(" (batch {})", *g.batch) : "");
  return fmt::format("{} step{}", g.phase, batch);
}

std::vector<std::string> trace_headline(const TraceResult& trace, std::size_t max_lines) {
  std::vector<std::string> lines;
  const std::vector<const TraceStepGroup*> groups = headline_groups(trace, max_lines);
  for (const TraceStepGroup* g : groups) lines.push_back(group_line(trace, *g));
  if (no_decode_step(groups)) lines.front() = "no decode step in the trace; " + lines.front();
  if (!lines.empty() && trace.marks_without_gpu_work > 0)
    lines.front() += fmt::format("; {} more step mark(s) launched no GPU work", trace.marks_without_gpu_work);
  if (lines.empty() && trace.present) {
    for (const TraceRankResult& r : trace.ranks)
      if (r.comm.merged_us > 0 || r.kernels > 0) {
        lines.push_back(fmt::format(
            "no steps ({}); rank {} over its whole trace: {:.1f} us of kernels, communication merged {:.1f} us, overlapped {:.1f} us, exposed {:.1f} us",
            trace.step_method_detail, r.rank, r.kernel_busy_us, r.comm.merged_us, r.comm.overlapped_us,
            r.comm.exposed_us));
        break;
      }
  }
  return lines;
}

}  // namespace k25
