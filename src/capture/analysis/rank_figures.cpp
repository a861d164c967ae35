// The trace analysis's per-rank figures over the whole trace: kernels by class and collective kind, GPU busy
// time, communication merged, overlapped and exposed, and HolisticTraceAnalysis's ProfilerStep window.
#include <algorithm>
#include <cmath>

#include "capture/analysis/trace_work.hpp"

namespace k25 {
namespace {

// One rank's activities sorted into intervals and exact sums (nanoseconds, turned into microseconds once).
struct RankIntervals {
  std::vector<Interval> all, kernels, comm, compute;
  std::array<std::vector<Interval>, kClassCount> by_class;
  std::map<std::uint16_t, std::vector<Interval>> by_kind;
  std::map<std::uint16_t, std::pair<std::uint64_t, std::int64_t>> kind_time;  // count, sum
  std::array<std::pair<std::uint64_t, std::int64_t>, kClassCount> class_time{};
};

// A kernel's interval into its kind's or compute's, and its time into the unclassified names' where no class
// took it.
void add_kernel(TraceWork& work, const GpuActivity& a, KernelClass cls, RankIntervals& in) {
  const Interval iv{a.start_ns, a.end_ns};
  work.kernel_time_total += a.end_ns - a.start_ns;
  in.kernels.push_back(iv);
  if (cls == KernelClass::unclassified) {
    ++work.unclassified[a.name].first;
    work.unclassified[a.name].second += static_cast<std::uint64_t>(a.end_ns - a.start_ns);
  }
  if (cls != KernelClass::communication) {
    in.compute.push_back(iv);
    return;
  }
  const std::uint16_t kind = work.classes.kind_of(a);
  in.comm.push_back(iv);
  in.by_kind[kind].push_back(iv);
  ++in.kind_time[kind].first;
  in.kind_time[kind].second += a.end_ns - a.start_ns;
}

RankIntervals collect(TraceWork& work, const RankWork& w, TraceRankResult& rr) {
  RankIntervals in;
  for (std::uint32_t i : w.acts) {
    const GpuActivity& a = work.trace.activities[i];
    const KernelClass cls = work.classes.class_of(a);
    in.all.push_back({a.start_ns, a.end_ns});
    in.by_class[class_index(cls)].push_back({a.start_ns, a.end_ns});
    ++in.class_time[class_index(cls)].first;
    in.class_time[class_index(cls)].second += a.end_ns - a.start_ns;
    if (a.type != GpuActivityType::kernel) {
      ++rr.copies;
      continue;
    }
    ++rr.kernels;
    if (a.launch == LaunchMode::graph) ++rr.graph_kernels;
    add_kernel(work, a, cls, in);
  }
  return in;
}

RankUnions unions_of(RankIntervals& in) {
  RankUnions u;
  u.busy = MergedIntervals(std::move(in.all));
  u.comm = MergedIntervals(in.comm);
  u.overlap = intersect(u.comm, MergedIntervals(in.compute));
  for (std::size_t c = 0; c < kClassCount; ++c) u.by_class[c] = MergedIntervals(std::move(in.by_class[c]));
  for (auto& [k, list] : in.by_kind) u.by_kind.emplace(k, MergedIntervals(std::move(list)));
  return u;
}

// HolisticTraceAnalysis keeps the kernels launched from the first ProfilerStep to the start of the last one.
std::optional<CommOverlap> profiler_step_window(const TraceWork& work, const RankWork& w) {
  std::vector<std::int64_t> starts;
  for (const StepMark* m : w.marks)
    if (!m->gpu_side && work.trace.names[m->name].starts_with("ProfilerStep#"))
      starts.push_back(m->host_start_ns);
  std::sort(starts.begin(), starts.end());
  if (starts.size() < 2) return std::nullopt;
  std::vector<Interval> comm, compute;
  for (std::uint32_t i : w.acts) {
    const GpuActivity& a = work.trace.activities[i];
    if (a.type != GpuActivityType::kernel || a.launch_ns == kNoLaunch || a.launch_ns < starts.front() ||
        a.launch_ns >= starts.back())
      continue;
    (work.classes.is_comm(a) ? comm : compute).push_back({a.start_ns, a.end_ns});
  }
  const MergedIntervals cu(std::move(comm)), pu(std::move(compute));
  return comm_overlap(cu.total(), intersect(cu, pu).total());
}

}  // namespace

CommOverlap comm_overlap(std::int64_t merged, std::int64_t overlapped) {
  CommOverlap o;
  o.merged_us = to_us(merged);
  o.overlapped_us = to_us(overlapped);
  o.exposed_us = to_us(merged - overlapped);
  o.overlap_percent =
      merged > 0 ? 100.0 * static_cast<double>(overlapped) / static_cast<double>(merged) : 0.0;
  return o;
}

TraceRankResult rank_figures(TraceWork& work, RankWork& w, const std::string& step_method) {
  const TraceRank& rank = work.trace.ranks[w.index];
  TraceRankResult rr;
  rr.rank = rank.rank;
  rr.rank_source = rank.rank_source;
  rr.file = work.trace.files[rank.file].path;
  rr.device = rank.device;
  rr.world_size = rank.world_size;
  RankIntervals in = collect(work, w, rr);
  const MergedIntervals kernel_union(std::move(in.kernels));
  w.unions = unions_of(in);
  const RankUnions& u = w.unions;
  rr.kernel_busy_us = to_us(kernel_union.total());
  rr.gpu_busy_us = to_us(u.busy.total());
  if (!u.busy.empty()) {
    rr.first_ns = u.busy.intervals().front().start;
    rr.last_ns = u.busy.intervals().back().end;
    rr.span_us = to_us(rr.last_ns - rr.first_ns);
  }
  rr.cut = work.trace.files[rank.file].cut;
  rr.comm = comm_overlap(u.comm.total(), u.overlap.total());
  for (const auto& [k, kt] : in.kind_time)
    rr.comm_kinds.push_back(
        {work.classes.kinds()[k], kt.first, to_us(kt.second), to_us(u.by_kind.at(k).total())});
  for (std::size_t c = 0; c < kClassCount; ++c)
    if (in.class_time[c].first > 0)
      rr.classes.push_back({kKernelClasses[c].key, in.class_time[c].first, to_us(in.class_time[c].second),
                            to_us(u.by_class[c].total())});
  rr.profiler_steps = profiler_step_window(work, w);
  if (step_method == "gpu_idle_gaps")
    w.steps = steps_from_idle_gaps(
        u.busy, static_cast<std::int64_t>(std::llround(work.settings.step_gap_us * 1000.0)));
  rr.steps = w.steps.size();
  return rr;
}

}  // namespace k25
