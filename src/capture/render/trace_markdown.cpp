// capture.md's trace section: per step kind, per class, per collective kind, per rank, the join cost and the
// kernels no class took.
#include "capture/render/trace_markdown.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "capture/render/markdown_text.hpp"
#include "capture/render/trace_headline.hpp"

namespace k25 {
namespace {

constexpr std::size_t kMaxGroupRows = 40;
constexpr std::size_t kMaxNameLength = 120;

std::string cell(const std::string& text) {
  return markdown_cell(text, kMaxNameLength);
}

std::string ms(double us) {
  return fmt::format("{:.3f}", us / 1000.0);
}
std::string batch_text(const std::optional<int>& batch) {
  return batch ? std::to_string(*batch) : "-";
}

const char* class_title(const std::string& key) {
  for (const KernelClassInfo& c : kKernelClasses)
    if (key == c.key) return c.title;
  return "?";
}

std::vector<const TraceStepGroup*> all_rank_groups(const TraceResult& t) {
  std::vector<const TraceStepGroup*> groups;
  for (const TraceStepGroup& g : t.groups)
    if (!g.rank && groups.size() < kMaxGroupRows) groups.push_back(&g);
  return groups;
}

void render_steps(std::string& md, const TraceResult& t) {
  const std::vector<const TraceStepGroup*> groups = all_rank_groups(t);
  if (groups.empty()) return;
  md +=
      "| phase | batch | steps (all ranks) | wall p50 (ms) | p90 | GPU busy p50 | idle p50 | host p50 | comm merged p50 | overlapped p50 | exposed p50 | comm share of the wall | of kernel time | exposed share |\n";
  md += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const TraceStepGroup* g : groups)
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", g->phase,
                      batch_text(g->batch), g->steps, ms(g->wall_us.p50), ms(g->wall_us.p90),
                      ms(g->busy_us.p50), ms(g->idle_us.p50), g->host_us ? ms(g->host_us->p50) : "-",
                      ms(g->comm_merged_us.p50), ms(g->comm_overlapped_us.p50), ms(g->comm_exposed_us.p50),
                      percent(g->comm_share), percent(g->comm_kernel_share), percent(g->exposed_share));
  md += "\n";

  // Time by class: each class's merged time over all steps' wall time (classes that run at once add up above
  // 100 %).
  std::vector<std::string> classes;
  for (const KernelClassInfo& c : kKernelClasses)
    for (const TraceStepGroup* g : groups)
      if (std::any_of(g->classes.begin(), g->classes.end(),
                      [&](const TraceClassShare& s) { return s.cls == c.key; })) {
        classes.push_back(c.key);
        break;
      }
  md +=
      "Time by kernel class (merged time of the class over the steps' wall time; classes that run at the same time add up above 100 %):\n\n| phase | batch |";
  for (const std::string& c : classes) md += fmt::format(" {} |", class_title(c));
  md += "\n|---|---:|";
  for (std::size_t i = 0; i < classes.size(); ++i) md += "---:|";
  md += "\n";
  for (const TraceStepGroup* g : groups) {
    md += fmt::format("| {} | {} |", g->phase, batch_text(g->batch));
    for (const std::string& c : classes) {
      const auto s = std::find_if(g->classes.begin(), g->classes.end(),
                                  [&](const TraceClassShare& x) { return x.cls == c; });
      md += s == g->classes.end() ? " - |"
                                  : fmt::format(" {} ({:g}) |", percent(s->share), s->kernels_per_step);
    }
    md += "\n";
  }
  md += "\n(in brackets: kernels per step, p50)\n\n";

  const bool any_collective =
      std::any_of(groups.begin(), groups.end(), [](const TraceStepGroup* g) { return !g->kinds.empty(); });
  if (!any_collective) {
    md += "Collectives per step: none (no collective kernel ran inside the steps).\n\n";
    return;
  }
  md +=
      "Collectives per step:\n\n"
      "| phase | batch | kind | ops per step | op p50 (us) | op p90 | sum per step p50 (us) | merged per step p50 | share of the step | bytes | size from | dtype | launch |\n"
      "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|\n";
  for (const TraceStepGroup* g : groups)
    for (const TraceKindShare& k : g->kinds)
      md += fmt::format(
          "| {} | {} | {} | {:g} | {:.1f} | {:.1f} | {:.1f} | {:.1f} | {} | {} | {} | {} | {} |\n", g->phase,
          batch_text(g->batch), k.kind, k.ops_per_step, k.op_us.p50, k.op_us.p90, k.sum_us.p50,
          k.merged_us.p50, percent(k.share), k.bytes == 0 ? "unknown" : std::to_string(k.bytes),
          k.bytes_source, k.dtype.empty() ? "-" : k.dtype, k.launch);
  md += "\n";
}

void render_ranks(std::string& md, const TraceResult& t) {
  md +=
      "### Per rank, whole trace\n\n| rank | from | device | kernels | kernel busy (us) | collectives by kind (count, sum us) | comm merged (us) | overlapped | exposed | overlap % | overlap %, ProfilerStep window | steps | file |\n"
      "|---:|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|\n";
  for (const TraceRankResult& r : t.ranks) {
    std::string kinds;
    for (const KindTime& k : r.comm_kinds)
      kinds += fmt::format("{}{} {}, {:.1f}", kinds.empty() ? "" : "; ", k.kind, k.count, k.sum_us);
    md += fmt::format(
        "| {} | {} | {} | {} | {:.1f} | {} | {:.1f} | {:.1f} | {:.1f} | {:.2f} | {} | {} | {} |\n", r.rank,
        r.rank_source, r.device, r.kernels, r.kernel_busy_us, kinds.empty() ? "none" : kinds,
        r.comm.merged_us, r.comm.overlapped_us, r.comm.exposed_us, r.comm.overlap_percent,
        r.profiler_steps ? fmt::format("{:.2f}", r.profiler_steps->overlap_percent) : "-", r.steps,
        cell(r.file));
  }
  md += "\n";
  // Per rank: the most frequent step kind.
  const std::vector<const TraceStepGroup*> top = headline_groups(t, 1);
  if (top.empty()) return;
  const TraceStepGroup& main = *top.front();
  md += fmt::format(
      "Per rank, {}:\n\n| rank | steps | wall p50 (ms) | busy p50 | comm merged p50 | exposed p50 | comm share |\n"
      "|---:|---:|---:|---:|---:|---:|---:|\n",
      step_title(main, t.step_method));
  for (const TraceStepGroup& g : t.groups)
    if (g.rank && g.phase == main.phase && g.batch == main.batch)
      md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", *g.rank, g.steps, ms(g.wall_us.p50),
                        ms(g.busy_us.p50), ms(g.comm_merged_us.p50), ms(g.comm_exposed_us.p50),
                        percent(g.comm_share));
  md += "\n";
}

// "rank 7 (66.7 %)"; a tie named as one: "ranks 7, 5 and 4, once each".
std::string last_to_start(const JoinCostGroup& g) {
  if (g.last_ranks.size() < 2) return fmt::format("rank {} ({})", g.last_rank, percent(g.last_rank_share));
  std::string ranks;
  for (std::size_t i = 0; i < g.last_ranks.size(); ++i)
    ranks += fmt::format("{}{}",
                         i == 0                         ? ""
                         : i + 1 == g.last_ranks.size() ? " and "
                                                        : ", ",
                         g.last_ranks[i]);
  return fmt::format(
      "ranks {}, {} each", ranks,
      g.last_rank_count == 1 ? std::string("once") : fmt::format("{} times", g.last_rank_count));
}

void render_join(std::string& md, const TraceResult& t) {
  md += "### Live join cost across ranks\n\n";
  if (t.join.empty()) {
    md += fmt::format("Not measured: {}.\n\n", t.join_reason);
    return;
  }
  md += fmt::format(
      "Steps lined up with rank {}'s by their GPU windows; in each, the k-th collective of a kind on every rank. "
      "Spread = latest start - earliest start (a rank's kernel waits for the last to arrive); the ranks share one clock (one node).\n\n| phase | batch | kind | steps | collectives | ranks | spread p50 (us) | p90 | max | last to start |\n"
      "|---|---:|---|---:|---:|---:|---:|---:|---:|---|\n",
      t.reference_rank);
  for (const JoinCostGroup& g : t.join)
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {:.1f} | {:.1f} | {:.1f} | {} |\n", g.phase,
                      batch_text(g.batch), g.kind, g.steps, g.collectives, g.ranks, g.start_spread_us.p50,
                      g.start_spread_us.p90, g.start_spread_us.max, last_to_start(g));
  md += "\n";
}

void render_backends(std::string& md, const TraceResult& t) {
  if (t.backends.empty()) return;
  md +=
      "### Backends that ran the collectives\n\nPer kind and size, over all ranks: the library and kernel the kernel-class table names for each collective kernel (NCCL's template is the kernel's, not the algorithm NCCL chose inside it).\n\n"
      "| kind | bytes | backend | count | op p50 (us) |\n|---|---:|---|---:|---:|\n";
  for (const BackendRow& b : t.backends)
    md += fmt::format("| {} | {} | {} | {} | {:.1f} |\n", b.kind,
                      b.bytes ? std::to_string(*b.bytes) : "unknown", cell(b.backend), b.count, b.op_us_p50);
  md += "\n";
  for (const BackendRuleNote& n : t.backend_rules)
    md += fmt::format("- {} on {} ranks: {} (source: {}).\n", cell(n.backend), n.ranks, cell(n.rule),
                      cell(n.source));
  if (!t.backend_rules.empty()) md += "\n";
}

void render_unclassified(std::string& md, const TraceResult& t) {
  if (t.unclassified.empty()) return;
  md += fmt::format(
      "### Unclassified kernels ({} of all kernel time)\n\nNo rule of {} matched them; add rules with --kernel-classes FILE.\n\n| kernel | count | sum (us) | share of kernel time |\n|---|---:|---:|---:|\n",
      percent(t.unclassified_share), fmt::join(t.class_tables, ", "));
  for (const UnclassifiedKernel& u : t.unclassified)
    md += fmt::format("| {} | {} | {:.1f} | {} |\n", cell(u.name), u.count, u.sum_us, percent(u.share));
  md += "\n";
}

}  // namespace

void render_trace_markdown(std::string& md, const TraceResult& t) {
  md += "## Trace: where a step's GPU time goes\n\n";
  md += fmt::format("**Steps:** {}: {} ({} in all).", t.step_method, t.step_method_detail, t.steps);
  md +=
      " Wall = the step's GPU window (first start to last end of the work it launched); busy = union of kernels, copies and sets in it; communication merged = union of the collective kernels, overlapped = its part that runs while another kernel does, exposed = merged - overlapped (HolisticTraceAnalysis's definitions, on every collective kernel the class table names, not only NCCL's). "
      "Shares are of the steps' summed wall time.\n\n";
  render_steps(md, t);
  render_ranks(md, t);
  render_join(md, t);
  render_backends(md, t);
  render_unclassified(md, t);
  md += fmt::format(
      "Sizes of the collective kernels: {} from the trace, {} from --model and the step's batch, {} unknown. "
      "Per-step rows: capture-steps.csv.\n\n",
      t.sizes_trace, t.sizes_model, t.sizes_unknown);
  if (!t.notes.empty()) {
    for (const std::string& note : t.notes) md += "- " + cell(note) + "\n";
    md += "\n";
  }
}

}  // namespace k25
