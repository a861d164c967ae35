// The trace's answer in words, from its over-all-ranks step groups.
#include "capture/trace_headline.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "capture/step_marks.hpp"

namespace k25 {
namespace {

// Milliseconds from 1 ms up, microseconds below.
std::string duration(double us) {
  return us >= 1000.0 ? fmt::format("{:.2f} ms", us / 1000.0) : fmt::format("{:.1f} us", us);
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

std::string step_title(const TraceStepGroup& g) {
  const std::string batch = g.batch ? fmt::format(" at batch {}", *g.batch) : "";
  if (g.phase == "unknown") return "step (phase unknown)" + batch;
  return fmt::format("{} step{}", g.phase, batch);
}

std::vector<std::string> trace_headline(const TraceResult& trace, std::size_t max_lines) {
  std::vector<std::string> lines;
  for (const TraceStepGroup* g : headline_groups(trace, max_lines)) {
    std::string line = fmt::format(
        "{}: {} (p50 of {} steps over the ranks); communication {} = {:.1f} % (exposed {} = {:.1f} %)",
        step_title(*g), duration(g->wall_us.p50), g->steps, duration(g->comm_merged_us.p50),
        100.0 * g->comm_share, duration(g->comm_exposed_us.p50), 100.0 * g->exposed_share);
    std::vector<std::string> kinds;
    for (const TraceKindShare& k : g->kinds)
      kinds.push_back(fmt::format("{} {:g} x {:.1f} us", k.kind, k.ops_per_step, k.op_us.p50));
    if (!kinds.empty()) line += ": " + fmt::format("{}", fmt::join(kinds, ", "));
    std::vector<const TraceClassShare*> classes;
    for (const TraceClassShare& c : g->classes)
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
    if (g->wall_us.p50 > 0)
      parts.push_back(fmt::format("GPU idle {:.1f} %", 100.0 * g->idle_us.p50 / g->wall_us.p50));
    if (!parts.empty()) line += "; " + fmt::format("{}", fmt::join(parts, ", "));
    lines.push_back(std::move(line));
  }
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
