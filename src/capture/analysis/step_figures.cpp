// The trace analysis's per-step figures: each step's row (wall, busy, idle, host, communication merged,
// overlapped and exposed, per-class merged time) and its samples into its (phase, batch) groups, over all
// ranks and of its rank.
#include <algorithm>

#include "capture/analysis/trace_work.hpp"

namespace k25 {
namespace {

// Counts and summed times per class of the activities starting in the step's window.
struct StepSums {
  std::array<double, kClassCount> count{}, sum{};
  double kernel_sum = 0;  // kernels only
};

StepSums step_sums(const TraceWork& work, const RankWork& w, const TraceStep& step) {
  const std::vector<GpuActivity>& activities = work.trace.activities;
  StepSums sums;
  const auto first =
      std::lower_bound(w.acts.begin(), w.acts.end(), step.start_ns,
                       [&](std::uint32_t i, std::int64_t t) { return activities[i].start_ns < t; });
  for (auto it = first; it != w.acts.end() && activities[*it].start_ns < step.end_ns; ++it) {
    const GpuActivity& a = activities[*it];
    const std::size_t c = class_index(work.classes.class_of(a));
    sums.count[c] += 1;
    sums.sum[c] += to_us(a.end_ns - a.start_ns);
    if (a.type == GpuActivityType::kernel) sums.kernel_sum += to_us(a.end_ns - a.start_ns);
  }
  return sums;
}

TraceStepRow step_row(const TraceWork& work, const RankWork& w, std::size_t s) {
  const TraceStep& step = w.steps[s];
  const RankUnions& u = w.unions;
  TraceStepRow row;
  row.rank = work.trace.ranks[w.index].rank;
  row.index = static_cast<std::int64_t>(s);
  row.phase = to_string(step.phase);
  row.batch = step.batch;
  row.tokens = step.tokens;
  row.mark = step.mark ? work.trace.names[step.mark] : "";
  row.start_us = to_us(step.start_ns - work.origin);
  const std::int64_t wall = step.end_ns - step.start_ns;
  const std::int64_t busy_ns = u.busy.measure_in(step.start_ns, step.end_ns);
  row.wall_us = to_us(wall);
  row.busy_us = to_us(busy_ns);
  row.idle_us = to_us(wall - busy_ns);
  if (step.host_ns) row.host_us = to_us(*step.host_ns);
  row.comm = comm_overlap(u.comm.measure_in(step.start_ns, step.end_ns),
                          u.overlap.measure_in(step.start_ns, step.end_ns));
  for (std::size_t c = 0; c < kClassCount; ++c)
    row.class_merged_us[c] = to_us(u.by_class[c].measure_in(step.start_ns, step.end_ns));
  return row;
}

void add_step(GroupAccumulator& g, const TraceStepRow& row, const TraceStep& step, const StepSums& sums) {
  g.phase = row.phase;
  g.batch = step.batch;
  if (step.tokens) g.tokens.push_back(*step.tokens);
  g.wall.push_back(row.wall_us);
  g.busy.push_back(row.busy_us);
  g.idle.push_back(row.idle_us);
  if (row.host_us) g.host.push_back(*row.host_us);
  g.merged.push_back(row.comm.merged_us);
  g.overlapped.push_back(row.comm.overlapped_us);
  g.exposed.push_back(row.comm.exposed_us);
  g.wall_total += row.wall_us;
  g.merged_total += row.comm.merged_us;
  g.exposed_total += row.comm.exposed_us;
  g.kernel_sum_total += sums.kernel_sum;
  g.comm_sum_total += sums.sum[class_index(KernelClass::communication)];
  for (std::size_t c = 0; c < kClassCount; ++c) {
    g.classes[c].count.push_back(sums.count[c]);
    g.classes[c].sum.push_back(sums.sum[c]);
    g.classes[c].merged.push_back(row.class_merged_us[c]);
    g.classes[c].merged_total += row.class_merged_us[c];
  }
}

// The step's collectives of each kind (positions in RankWork::comm).
using StepCollectives = std::map<std::uint16_t, std::vector<std::size_t>>;

void add_collectives(const TraceWork& work, const RankWork& w, const TraceStep& step,
                     const StepCollectives& step_comm, GroupAccumulator& g) {
  for (const auto& [k, list] : step_comm) {
    GroupAccumulator::PerKind& pk = g.kinds[k];
    pk.count.push_back(static_cast<double>(list.size()));
    const double merged = to_us(w.unions.by_kind.at(k).measure_in(step.start_ns, step.end_ns));
    pk.merged.push_back(merged);
    pk.merged_total += merged;
    double sum = 0;
    for (std::size_t c : list) {
      const GpuActivity& a = work.trace.activities[w.comm[c]];
      pk.op_us.push_back(to_us(a.end_ns - a.start_ns));
      sum += to_us(a.end_ns - a.start_ns);
      ++pk.sizes[{a.bytes, w.comm_source[c]}];
      if (!work.classes.dtype_of(a).empty()) pk.dtypes.insert(work.classes.dtype_of(a));
      pk.launches.insert(a.launch);
    }
    pk.sum.push_back(sum);
  }
}

}  // namespace

void step_figures(TraceWork& work, const RankWork& w, TraceResult& r) {
  std::vector<StepCollectives> comm_of_step(w.steps.size());
  for (std::size_t c = 0; c < w.comm.size(); ++c)
    if (w.comm_step[c] >= 0)
      comm_of_step[static_cast<std::size_t>(w.comm_step[c])]
                  [work.classes.kind_of(work.trace.activities[w.comm[c]])]
                      .push_back(c);
  const int rank = work.trace.ranks[w.index].rank;
  for (std::size_t s = 0; s < w.steps.size(); ++s) {
    const TraceStep& step = w.steps[s];
    TraceStepRow row = step_row(work, w, s);
    const StepSums sums = step_sums(work, w, step);
    for (const auto& [k, list] : comm_of_step[s]) row.comm_ops += list.size();
    for (const int group_rank : {-1, rank}) {
      GroupAccumulator& g = work.groups[{group_rank, k25::phase_order(row.phase), step.batch.value_or(-1)}];
      add_step(g, row, step, sums);
      add_collectives(work, w, step, comm_of_step[s], g);
    }
    r.step_rows.push_back(std::move(row));
  }
}

}  // namespace k25
