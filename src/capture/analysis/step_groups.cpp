// The trace analysis's step groups: each (phase, batch[, rank]) group's samples into its figures (p50s and
// shares of the wall and of kernel time, per class and per collective kind), and the kernels no class took.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "capture/analysis/trace_work.hpp"

namespace k25 {
namespace {

constexpr std::size_t kMaxUnclassified = 25;

Stats stats_or_zero(std::vector<double> samples) {
  return samples.empty() ? Stats{} : summarize(std::move(samples));
}

double median(std::vector<double> samples) {
  return samples.empty() ? 0.0 : summarize(std::move(samples)).p50;
}

std::string launch_text(const std::set<LaunchMode>& launches) {
  if (launches.size() > 1) return "mixed";
  if (launches.empty()) return "unknown";
  const LaunchMode mode = *launches.begin();
  return mode == LaunchMode::graph ? "graph" : mode == LaunchMode::eager ? "eager" : "unknown";
}

void add_classes(GroupAccumulator& g, TraceStepGroup& out) {
  for (std::size_t c = 0; c < kClassCount; ++c) {
    if (g.classes[c].merged_total <= 0 && median(g.classes[c].count) == 0) continue;
    TraceClassShare cs;
    cs.cls = kKernelClasses[c].key;
    cs.kernels_per_step = median(g.classes[c].count);
    cs.sum_us = stats_or_zero(std::move(g.classes[c].sum));
    cs.merged_us = stats_or_zero(std::move(g.classes[c].merged));
    cs.share = g.wall_total > 0 ? g.classes[c].merged_total / g.wall_total : 0.0;
    out.classes.push_back(std::move(cs));
  }
}

void add_kinds(GroupAccumulator& g, const std::vector<std::string>& kinds, TraceStepGroup& out) {
  for (auto& [k, pk] : g.kinds) {
    TraceKindShare ks;
    ks.kind = kinds[k];
    ks.ops_per_step = median(pk.count);
    ks.op_us = stats_or_zero(std::move(pk.op_us));
    ks.sum_us = stats_or_zero(std::move(pk.sum));
    ks.merged_us = stats_or_zero(std::move(pk.merged));
    ks.share = g.wall_total > 0 ? pk.merged_total / g.wall_total : 0.0;
    const auto most = std::max_element(pk.sizes.begin(), pk.sizes.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
    if (most != pk.sizes.end()) {
      ks.bytes = most->first.first;
      ks.bytes_source = bytes_source_name(most->first.second);
    }
    ks.dtype = fmt::format("{}", fmt::join(pk.dtypes, ","));
    ks.launch = launch_text(pk.launches);
    out.kinds.push_back(std::move(ks));
  }
}

TraceStepGroup group_figures(int rank, GroupAccumulator& g) {
  TraceStepGroup out;
  out.phase = g.phase;
  out.batch = g.batch;
  if (!g.tokens.empty()) out.tokens = static_cast<int>(std::lround(median(g.tokens)));
  if (rank >= 0) out.rank = rank;
  out.steps = g.wall.size();
  out.wall_us = stats_or_zero(std::move(g.wall));
  out.busy_us = stats_or_zero(std::move(g.busy));
  out.idle_us = stats_or_zero(std::move(g.idle));
  if (!g.host.empty()) out.host_us = summarize(std::move(g.host));
  out.comm_merged_us = stats_or_zero(std::move(g.merged));
  out.comm_overlapped_us = stats_or_zero(std::move(g.overlapped));
  out.comm_exposed_us = stats_or_zero(std::move(g.exposed));
  out.comm_share = g.wall_total > 0 ? g.merged_total / g.wall_total : 0.0;
  out.exposed_share = g.wall_total > 0 ? g.exposed_total / g.wall_total : 0.0;
  out.comm_kernel_share = g.kernel_sum_total > 0 ? g.comm_sum_total / g.kernel_sum_total : 0.0;
  return out;
}

}  // namespace

void finish_groups(TraceWork& work, TraceResult& r) {
  for (auto& [key, g] : work.groups) {
    TraceStepGroup out = group_figures(std::get<0>(key), g);
    add_classes(g, out);
    add_kinds(g, work.classes.kinds(), out);
    r.groups.push_back(std::move(out));
  }
}

void unclassified_kernels(const TraceWork& work, TraceResult& r) {
  for (std::uint32_t n = 0; n < work.unclassified.size(); ++n) {
    const auto& [count, sum_ns] = work.unclassified[n];
    if (count == 0) continue;
    UnclassifiedKernel u;
    u.name = work.trace.names[n];
    u.count = count;
    u.sum_us = to_us(static_cast<std::int64_t>(sum_ns));
    u.share = work.kernel_time_total > 0
                  ? static_cast<double>(sum_ns) / static_cast<double>(work.kernel_time_total)
                  : 0.0;
    r.unclassified_share += u.share;
    r.unclassified.push_back(std::move(u));
  }
  std::stable_sort(
      r.unclassified.begin(), r.unclassified.end(),
      [](const UnclassifiedKernel& a, const UnclassifiedKernel& b) { return a.sum_us > b.sum_us; });
  if (r.unclassified.size() > kMaxUnclassified) r.unclassified.resize(kMaxUnclassified);
}

}  // namespace k25
