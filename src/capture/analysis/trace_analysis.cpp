// Profiler-trace timelines into figures: classes, steps, per-step and per-rank time, sizes, join cost,
// records.
#include "capture/analysis/trace_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "capture/analysis/intervals.hpp"
#include "capture/analysis/trace_classes.hpp"
#include "capture/analysis/trace_steps.hpp"
#include "common/error.hpp"
#include "plan/graph_padding.hpp"

namespace k25 {
namespace {

constexpr std::size_t kClassCount = kKernelClasses.size();
constexpr std::size_t kMaxUnclassified = 25;

double us(std::int64_t ns) {
  return static_cast<double>(ns) / 1000.0;
}

std::size_t class_index(KernelClass c) {
  return static_cast<std::size_t>(c);
}

// A record's phase: 'd' decode, 'p' prefill, 'm' mixed, '?' unknown (OpRecord::phase).
char phase_char(StepPhase phase) {
  return phase == StepPhase::unknown ? '?' : to_string(phase)[0];
}

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

// One rank's working data.
struct RankWork {
  std::uint32_t index = 0;          // into TraceCapture::ranks
  std::vector<std::uint32_t> acts;  // its activities by start
  std::vector<std::uint32_t> comm;  // its communication kernels by start
  std::vector<const StepMark*> marks;
  std::vector<TraceStep> steps;
  std::optional<MarkFamily> family;
  std::string pattern_reason;
  std::vector<std::int32_t> comm_step;    // per communication kernel: its step (-1: none)
  std::vector<std::uint8_t> comm_source;  // per communication kernel: where its size came from (OpRecord)
  std::vector<std::int64_t> joined;       // per step: the reference rank's step it lines up with (-1: none)
};

// Per-step samples of a (phase, batch[, rank]) group.
struct GroupAccumulator {
  std::string phase;
  std::optional<int> batch;
  std::vector<double> tokens;
  std::vector<double> wall, busy, idle, host, merged, overlapped, exposed;
  double wall_total = 0, merged_total = 0, exposed_total = 0;
  double kernel_sum_total = 0, comm_sum_total = 0;  // summed kernel times (torch's "CUDA total")
  struct PerClass {
    std::vector<double> count, sum, merged;
    double merged_total = 0;
  };
  std::array<PerClass, kClassCount> classes;
  struct PerKind {
    std::vector<double> count, sum, merged, op_us;
    double merged_total = 0;
    std::map<std::pair<std::uint64_t, std::uint8_t>, std::uint64_t> sizes;  // (bytes, source) -> ops
    std::set<std::string> dtypes;
    std::set<LaunchMode> launches;
  };
  std::map<std::uint16_t, PerKind> kinds;
};

Stats stats_or_zero(std::vector<double> samples) {
  return samples.empty() ? Stats{} : summarize(std::move(samples));
}

double median(std::vector<double> samples) {
  return samples.empty() ? 0.0 : summarize(std::move(samples)).p50;
}

}  // namespace

void check_trace_runs(const TraceCapture& trace) {
  const auto who = [&](const TraceRank& r) {
    const TraceFile& f = trace.files[r.file];
    return r.process.empty() || r.process == file_name(f.path) ? f.path
                                                               : fmt::format("{} ({})", f.path, r.process);
  };
  const TraceRank* sized = nullptr;
  for (const TraceRank& r : trace.ranks) {
    if (r.world_size == 0) continue;
    if (sized && sized->world_size != r.world_size)
      throw UsageError(fmt::format("files of different runs: {} has world size {}, {} has {}", who(*sized),
                                   sized->world_size, who(r), r.world_size));
    if (!sized) sized = &r;
  }
  std::map<int, const TraceRank*> claimed;
  for (const TraceRank& r : trace.ranks) {
    const auto [it, inserted] = claimed.emplace(r.rank, &r);
    if (!inserted)
      throw UsageError(
          fmt::format("{} and {} both claim rank {} (from {}): give one file per rank of one run",
                      who(*it->second), who(r), r.rank, r.rank_source));
  }
  // Ranks of one run are traced together: their GPU times overlap.
  if (trace.ranks.size() < 2) return;
  std::vector<std::pair<std::int64_t, std::int64_t>> span(trace.ranks.size(), {INT64_MAX, INT64_MIN});
  for (const GpuActivity& a : trace.activities) {
    span[a.rank].first = std::min(span[a.rank].first, a.start_ns);
    span[a.rank].second = std::max(span[a.rank].second, a.end_ns);
  }
  std::size_t longest = 0;
  for (std::size_t i = 0; i < span.size(); ++i)
    if (span[i].second - span[i].first > span[longest].second - span[longest].first) longest = i;
  for (std::size_t i = 0; i < span.size(); ++i) {
    if (!trace.ranks[i].absolute_clock || !trace.ranks[longest].absolute_clock ||
        span[i].first > span[i].second)
      continue;
    // Within a minute of each other at least: files of one run traced on one clock.
    constexpr std::int64_t kSlack = 60'000'000'000;
    if (span[i].first > span[longest].second + kSlack || span[i].second + kSlack < span[longest].first)
      throw UsageError(fmt::format(
          "files of different runs: the GPU times of {} and {} are {:.1f} s apart (ranks of one run are traced together)",
          who(trace.ranks[longest]), who(trace.ranks[i]),
          static_cast<double>(
              std::max(span[i].first - span[longest].second, span[longest].first - span[i].second)) /
              1e9));
  }
}

TraceAnalysis analyze_trace(TraceCapture trace, const KernelClassifier& classifier,
                            const TraceSettings& settings) {
  TraceAnalysis out;
  TraceResult& r = out.result;
  r.present = true;
  r.class_tables = classifier.tables();
  r.step_gap_us = settings.step_gap_us;
  r.notes = trace.notes;
  for (const TraceFile& f : trace.files) {
    if (f.cut) r.notes.push_back(fmt::format("{}: {}", f.path, f.cut_reason));
    for (const std::string& note : f.notes) r.notes.push_back(fmt::format("{}: {}", f.path, note));
  }

  // Classes of the kernels; communication kinds interned.
  const TraceClasses classes(trace, classifier);
  const std::vector<std::string>& kinds = classes.kinds();
  const auto class_of = [&](const GpuActivity& a) { return classes.class_of(a); };
  const auto is_comm = [&](const GpuActivity& a) { return classes.is_comm(a); };

  // Per rank: activities by start, communication kernels, marks.
  std::vector<RankWork> work(trace.ranks.size());
  for (std::uint32_t i = 0; i < trace.ranks.size(); ++i) work[i].index = i;
  for (std::uint32_t i = 0; i < trace.activities.size(); ++i)
    work[trace.activities[i].rank].acts.push_back(i);
  for (const StepMark& m : trace.marks) work[m.rank].marks.push_back(&m);
  std::int64_t origin = INT64_MAX;
  for (RankWork& w : work) {
    std::stable_sort(w.acts.begin(), w.acts.end(), [&](std::uint32_t a, std::uint32_t b) {
      return trace.activities[a].start_ns < trace.activities[b].start_ns;
    });
    for (std::uint32_t i : w.acts)
      if (is_comm(trace.activities[i])) w.comm.push_back(i);
    if (!w.acts.empty()) origin = std::min(origin, trace.activities[w.acts.front()].start_ns);
  }
  // Ranks in rank order for every output.
  std::sort(work.begin(), work.end(), [&](const RankWork& a, const RankWork& b) {
    return trace.ranks[a.index].rank < trace.ranks[b.index].rank;
  });

  // The step method, one for the run: marks where any rank has them, else the collectives' pattern, else
  // gaps.
  std::set<MarkFamily> families;
  std::size_t ranks_with_marks = 0;
  for (RankWork& w : work) {
    w.steps = steps_from_marks(w.marks, trace.names, w.family);
    if (w.family) {
      families.insert(*w.family);
      ++ranks_with_marks;
    }
  }
  StepHints hints;
  hints.prefill_factor = settings.prefill_factor;
  std::optional<std::uint64_t> bytes_per_token;
  if (settings.model) {
    hints.model_allreduces_per_step = settings.model->allreduces_per_step;
    bytes_per_token = settings.model->bytes_per_token();
  }
  if (ranks_with_marks > 0) {
    r.step_method = "engine_marks";
    std::vector<std::string> names;
    for (MarkFamily f : families) names.push_back(to_string(f));
    r.step_method_detail =
        fmt::format("{} marks on {} of {} rank(s)", fmt::join(names, " and "), ranks_with_marks, work.size());
    if (ranks_with_marks < work.size())
      r.notes.push_back(fmt::format("{} rank(s) have no step marks: their figures are whole-trace only",
                                    work.size() - ranks_with_marks));
  } else {
    std::size_t ranks_with_pattern = 0;
    std::string reason;
    for (RankWork& w : work) {
      std::vector<CommKernel> comm;
      for (std::uint32_t i : w.comm) {
        const GpuActivity& a = trace.activities[i];
        comm.push_back({a.start_ns, a.end_ns, classes.kind_of(a), a.bytes});
      }
      if (comm.empty()) continue;
      w.steps = steps_from_comm_pattern(comm, kinds, hints, bytes_per_token, w.pattern_reason);
      if (!w.steps.empty()) ++ranks_with_pattern;
      if (reason.empty()) reason = w.pattern_reason;
    }
    if (ranks_with_pattern > 0) {
      r.step_method = "comm_pattern";
      r.step_method_detail = fmt::format(
          "no step marks in the trace: the repeating pattern of each rank's collectives on {} of {} rank(s)",
          ranks_with_pattern, work.size());
    } else {
      r.step_method = "gpu_idle_gaps";
      r.step_method_detail = fmt::format(
          "no step marks, {}: the GPU's busy stretches between idle gaps of at least {:g} us (--step-gap-us)",
          reason.empty() ? "no collectives" : "no pattern of collectives (" + reason + ")",
          settings.step_gap_us);
    }
  }

  // Per rank: whole-trace figures, steps (gaps where that is the method), sizes and per-step figures.
  std::map<std::tuple<int, int, int>, GroupAccumulator> groups;  // (rank or -1, phase order, batch or -1)
  std::vector<std::pair<std::uint32_t, std::uint64_t>> unclassified_time(trace.names.size(), {0, 0});
  std::int64_t kernel_time_total = 0;
  const auto gap_ns = static_cast<std::int64_t>(std::llround(settings.step_gap_us * 1000.0));
  std::uint64_t graph_unknown = 0;  // collectives without a size that a CUDA graph replayed
  for (RankWork& w : work) {
    const TraceRank& rank = trace.ranks[w.index];
    TraceRankResult rr;
    rr.rank = rank.rank;
    rr.rank_source = rank.rank_source;
    rr.file = trace.files[rank.file].path;
    rr.device = rank.device;
    rr.world_size = rank.world_size;

    std::vector<Interval> all, kernels, comm, compute;
    std::array<std::vector<Interval>, kClassCount> by_class;
    std::map<std::uint16_t, std::vector<Interval>> by_kind;
    // Sums in nanoseconds (exact), turned into microseconds once.
    std::map<std::uint16_t, std::pair<std::uint64_t, std::int64_t>> kind_time;  // count, sum
    std::array<std::pair<std::uint64_t, std::int64_t>, kClassCount> class_time{};
    for (std::uint32_t i : w.acts) {
      const GpuActivity& a = trace.activities[i];
      const Interval iv{a.start_ns, a.end_ns};
      const KernelClass cls = class_of(a);
      all.push_back(iv);
      by_class[class_index(cls)].push_back(iv);
      ++class_time[class_index(cls)].first;
      class_time[class_index(cls)].second += a.end_ns - a.start_ns;
      if (a.type != GpuActivityType::kernel) {
        ++rr.copies;
        continue;
      }
      ++rr.kernels;
      kernel_time_total += a.end_ns - a.start_ns;
      if (a.launch == LaunchMode::graph) ++rr.graph_kernels;
      kernels.push_back(iv);
      if (cls == KernelClass::unclassified) {
        ++unclassified_time[a.name].first;
        unclassified_time[a.name].second += static_cast<std::uint64_t>(a.end_ns - a.start_ns);
      }
      if (cls == KernelClass::communication) {
        comm.push_back(iv);
        by_kind[classes.kind_of(a)].push_back(iv);
        ++kind_time[classes.kind_of(a)].first;
        kind_time[classes.kind_of(a)].second += a.end_ns - a.start_ns;
      } else {
        compute.push_back(iv);
      }
    }
    const MergedIntervals busy(std::move(all)), kernel_union(std::move(kernels)), comm_union(comm),
        compute_union(compute);
    const MergedIntervals overlap = intersect(comm_union, compute_union);
    std::array<MergedIntervals, kClassCount> class_union;
    for (std::size_t c = 0; c < kClassCount; ++c) class_union[c] = MergedIntervals(std::move(by_class[c]));
    std::map<std::uint16_t, MergedIntervals> kind_union;
    for (auto& [k, list] : by_kind) kind_union.emplace(k, MergedIntervals(std::move(list)));

    rr.kernel_busy_us = us(kernel_union.total());
    rr.gpu_busy_us = us(busy.total());
    if (!busy.empty()) rr.span_us = us(busy.intervals().back().end - busy.intervals().front().start);
    const auto overlap_of = [](std::int64_t merged, std::int64_t overlapped) {
      CommOverlap o;
      o.merged_us = us(merged);
      o.overlapped_us = us(overlapped);
      o.exposed_us = us(merged - overlapped);
      o.overlap_percent =
          merged > 0 ? 100.0 * static_cast<double>(overlapped) / static_cast<double>(merged) : 0.0;
      return o;
    };
    rr.comm = overlap_of(comm_union.total(), overlap.total());
    for (const auto& [k, kt] : kind_time)
      rr.comm_kinds.push_back({kinds[k], kt.first, us(kt.second), us(kind_union.at(k).total())});
    for (std::size_t c = 0; c < kClassCount; ++c)
      if (class_time[c].first > 0)
        rr.classes.push_back({kKernelClasses[c].key, class_time[c].first, us(class_time[c].second),
                              us(class_union[c].total())});
    // HolisticTraceAnalysis keeps the kernels launched from the first ProfilerStep to the start of the last
    // one.
    std::vector<std::int64_t> profiler_steps;
    for (const StepMark* m : w.marks)
      if (!m->gpu_side && trace.names[m->name].starts_with("ProfilerStep#"))
        profiler_steps.push_back(m->host_start_ns);
    std::sort(profiler_steps.begin(), profiler_steps.end());
    if (profiler_steps.size() >= 2) {
      std::vector<Interval> c2, p2;
      for (std::uint32_t i : w.acts) {
        const GpuActivity& a = trace.activities[i];
        if (a.type != GpuActivityType::kernel || a.launch_ns == kNoLaunch ||
            a.launch_ns < profiler_steps.front() || a.launch_ns >= profiler_steps.back())
          continue;
        (is_comm(a) ? c2 : p2).push_back({a.start_ns, a.end_ns});
      }
      const MergedIntervals cu(std::move(c2)), pu(std::move(p2));
      rr.profiler_steps = overlap_of(cu.total(), intersect(cu, pu).total());
    }

    if (r.step_method == "gpu_idle_gaps") w.steps = steps_from_idle_gaps(busy, gap_ns);
    rr.steps = w.steps.size();

    // Each communication kernel's step (the first whose window holds its start) and size.
    w.comm_step.assign(w.comm.size(), -1);
    for (std::size_t s = 0; s < w.steps.size(); ++s) {
      const auto first =
          std::lower_bound(w.comm.begin(), w.comm.end(), w.steps[s].start_ns,
                           [&](std::uint32_t i, std::int64_t t) { return trace.activities[i].start_ns < t; });
      for (auto it = first; it != w.comm.end() && trace.activities[*it].start_ns < w.steps[s].end_ns; ++it) {
        auto& slot = w.comm_step[static_cast<std::size_t>(it - w.comm.begin())];
        if (slot < 0) slot = static_cast<std::int32_t>(s);
      }
    }
    std::vector<std::uint8_t>& comm_source = w.comm_source;
    comm_source.assign(w.comm.size(), 2);
    for (std::size_t c = 0; c < w.comm.size(); ++c) {
      GpuActivity& a = trace.activities[w.comm[c]];
      if (a.bytes > 0) {
        comm_source[c] = 0;
      } else if (settings.model && kinds[classes.kind_of(a)] == "AllReduce" && w.comm_step[c] >= 0 &&
                 w.steps[static_cast<std::size_t>(w.comm_step[c])].tokens) {
        // The step's tokens, padded to the graph capture sizes where a CUDA graph replayed the kernel.
        int tokens = *w.steps[static_cast<std::size_t>(w.comm_step[c])].tokens;
        if (a.launch == LaunchMode::graph && !settings.model->graph_sizes.empty() && tokens > 0)
          tokens = pad_to_graph_size(tokens, settings.model->graph_sizes).padded;
        a.bytes = static_cast<std::uint64_t>(tokens) * settings.model->bytes_per_token();
        comm_source[c] = a.bytes > 0 ? 1 : 2;
      }
      (comm_source[c] == 0 ? r.sizes_trace : comm_source[c] == 1 ? r.sizes_model : r.sizes_unknown) += 1;
      if (comm_source[c] == 2 && a.launch == LaunchMode::graph) ++graph_unknown;
    }

    // Per-step figures into the groups (all ranks, and this rank).
    std::vector<std::vector<std::size_t>> comm_of_step(w.steps.size());
    for (std::size_t c = 0; c < w.comm.size(); ++c)
      if (w.comm_step[c] >= 0) comm_of_step[static_cast<std::size_t>(w.comm_step[c])].push_back(c);
    for (std::size_t s = 0; s < w.steps.size(); ++s) {
      const TraceStep& step = w.steps[s];
      TraceStepRow row;
      row.rank = rank.rank;
      row.index = static_cast<std::int64_t>(s);
      row.phase = to_string(step.phase);
      row.batch = step.batch;
      row.tokens = step.tokens;
      row.mark = step.mark ? trace.names[step.mark] : "";
      row.start_us = us(step.start_ns - origin);
      const std::int64_t wall = step.end_ns - step.start_ns;
      const std::int64_t busy_ns = busy.measure_in(step.start_ns, step.end_ns);
      row.wall_us = us(wall);
      row.busy_us = us(busy_ns);
      row.idle_us = us(wall - busy_ns);
      if (step.host_ns) row.host_us = us(*step.host_ns);
      row.comm = overlap_of(comm_union.measure_in(step.start_ns, step.end_ns),
                            overlap.measure_in(step.start_ns, step.end_ns));
      for (std::size_t c = 0; c < kClassCount; ++c)
        row.class_merged_us[c] = us(class_union[c].measure_in(step.start_ns, step.end_ns));
      // Counts and summed times per class and the step's collectives per kind (activities starting in the
      // window).
      std::array<double, kClassCount> class_count{}, class_sum{};
      double kernel_sum = 0;
      std::map<std::uint16_t, std::vector<std::size_t>> step_comm;
      const auto first =
          std::lower_bound(w.acts.begin(), w.acts.end(), step.start_ns,
                           [&](std::uint32_t i, std::int64_t t) { return trace.activities[i].start_ns < t; });
      for (auto it = first; it != w.acts.end() && trace.activities[*it].start_ns < step.end_ns; ++it) {
        const GpuActivity& a = trace.activities[*it];
        class_count[class_index(class_of(a))] += 1;
        class_sum[class_index(class_of(a))] += us(a.end_ns - a.start_ns);
        if (a.type == GpuActivityType::kernel) kernel_sum += us(a.end_ns - a.start_ns);
      }
      for (std::size_t c : comm_of_step[s])
        step_comm[classes.kind_of(trace.activities[w.comm[c]])].push_back(c);
      for (const auto& [k, list] : step_comm) row.comm_ops += list.size();
      for (const int group_rank : {-1, rank.rank}) {
        GroupAccumulator& g = groups[{group_rank, phase_order(row.phase), step.batch.value_or(-1)}];
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
        g.kernel_sum_total += kernel_sum;
        g.comm_sum_total += class_sum[class_index(KernelClass::communication)];
        for (std::size_t c = 0; c < kClassCount; ++c) {
          g.classes[c].count.push_back(class_count[c]);
          g.classes[c].sum.push_back(class_sum[c]);
          g.classes[c].merged.push_back(row.class_merged_us[c]);
          g.classes[c].merged_total += row.class_merged_us[c];
        }
        for (const auto& [k, list] : step_comm) {
          GroupAccumulator::PerKind& pk = g.kinds[k];
          pk.count.push_back(static_cast<double>(list.size()));
          const double merged = us(kind_union.at(k).measure_in(step.start_ns, step.end_ns));
          pk.merged.push_back(merged);
          pk.merged_total += merged;
          double sum = 0;
          for (std::size_t c : list) {
            const GpuActivity& a = trace.activities[w.comm[c]];
            pk.op_us.push_back(us(a.end_ns - a.start_ns));
            sum += us(a.end_ns - a.start_ns);
            ++pk.sizes[{a.bytes, comm_source[c]}];
            if (!classes.dtype_of(a).empty()) pk.dtypes.insert(classes.dtype_of(a));
            pk.launches.insert(a.launch);
          }
          pk.sum.push_back(sum);
        }
      }
      r.step_rows.push_back(std::move(row));
    }
    r.steps += w.steps.size();
    r.ranks.push_back(std::move(rr));
  }

  // Steps lined up across ranks by their GPU windows: each step takes the reference rank's step it overlaps
  // most.
  const RankWork* reference = nullptr;
  for (const RankWork& w : work)
    if (!reference || w.steps.size() > reference->steps.size()) reference = &w;
  if (reference && !reference->steps.empty()) r.reference_rank = trace.ranks[reference->index].rank;
  for (RankWork& w : work) {
    w.joined.assign(w.steps.size(), -1);
    if (!reference || reference->steps.empty()) continue;
    const auto& ref = reference->steps;
    for (std::size_t s = 0; s < w.steps.size(); ++s) {
      if (&w == reference) {
        w.joined[s] = static_cast<std::int64_t>(s);
        continue;
      }
      const TraceStep& step = w.steps[s];
      auto it = std::lower_bound(ref.begin(), ref.end(), step.start_ns,
                                 [](const TraceStep& x, std::int64_t t) { return x.end_ns < t; });
      std::int64_t best = 0;
      for (; it != ref.end() && it->start_ns < step.end_ns; ++it) {
        const std::int64_t overlap =
            std::min(it->end_ns, step.end_ns) - std::max(it->start_ns, step.start_ns);
        if (overlap > best) {
          best = overlap;
          w.joined[s] = it - ref.begin();
        }
      }
    }
  }
  for (TraceStepRow& row : r.step_rows) {
    for (const RankWork& w : work)
      if (trace.ranks[w.index].rank == row.rank && static_cast<std::size_t>(row.index) < w.joined.size())
        row.joined = w.joined[static_cast<std::size_t>(row.index)];
  }

  // The live join cost: per joined step and kind, the k-th collective of every rank.
  std::vector<const RankWork*> timed;
  for (const RankWork& w : work)
    if (trace.ranks[w.index].absolute_clock && !w.steps.empty()) timed.push_back(&w);
  if (work.size() < 2) {
    r.join_reason = "one rank: no join across ranks";
  } else if (timed.size() < 2) {
    r.join_reason = "fewer than two ranks with steps on a common clock";
  } else {
    struct JoinSamples {
      std::string phase;
      std::optional<int> batch;
      std::set<std::int64_t> steps;
      std::vector<double> spread;
      std::map<int, std::uint64_t> last;
      std::vector<int> last_order;  // the ranks that were last, in the order they first were
      std::set<int> ranks;
    };
    std::map<std::tuple<int, int, std::uint16_t>, JoinSamples> join;
    // (joined step, kind) -> per rank the starts of its collectives of that kind, in order.
    std::map<std::pair<std::int64_t, std::uint16_t>, std::map<int, std::vector<std::int64_t>>> starts;
    for (const RankWork* w : timed) {
      std::set<std::int64_t> seen;
      for (std::size_t c = 0; c < w->comm.size(); ++c) {
        if (w->comm_step[c] < 0) continue;
        const std::int64_t joined = w->joined[static_cast<std::size_t>(w->comm_step[c])];
        if (joined < 0) continue;
        const GpuActivity& a = trace.activities[w->comm[c]];
        starts[{joined, classes.kind_of(a)}][trace.ranks[w->index].rank].push_back(a.start_ns);
      }
    }
    for (const auto& [key, per_rank] : starts) {
      if (per_rank.size() < 2) continue;
      const std::size_t count = per_rank.begin()->second.size();
      if (std::any_of(per_rank.begin(), per_rank.end(),
                      [&](const auto& p) { return p.second.size() != count; }))
        continue;
      const TraceStep& ref_step = reference->steps[static_cast<std::size_t>(key.first)];
      JoinSamples& js =
          join[{phase_order(to_string(ref_step.phase)), ref_step.batch.value_or(-1), key.second}];
      js.phase = to_string(ref_step.phase);
      js.batch = ref_step.batch;
      js.steps.insert(key.first);
      for (const auto& [rank_number, list] : per_rank) js.ranks.insert(rank_number);
      for (std::size_t k = 0; k < count; ++k) {
        std::int64_t lo = INT64_MAX, hi = INT64_MIN;
        int last = 0;
        for (const auto& [rank_number, list] : per_rank) {
          lo = std::min(lo, list[k]);
          if (list[k] > hi) {
            hi = list[k];
            last = rank_number;
          }
        }
        js.spread.push_back(us(hi - lo));
        if (js.last[last]++ == 0) js.last_order.push_back(last);
      }
    }
    for (auto& [key, js] : join) {
      JoinCostGroup g;
      g.phase = js.phase;
      g.batch = js.batch;
      g.kind = kinds[std::get<2>(key)];
      g.steps = js.steps.size();
      g.collectives = js.spread.size();
      g.ranks = static_cast<int>(js.ranks.size());
      g.start_spread_us = summarize(std::move(js.spread));
      const auto most = std::max_element(js.last.begin(), js.last.end(),
                                         [](const auto& a, const auto& b) { return a.second < b.second; });
      g.last_rank = most->first;
      g.last_rank_share = static_cast<double>(most->second) / static_cast<double>(g.collectives);
      g.last_rank_count = most->second;
      for (const int rank_number : js.last_order)
        if (js.last[rank_number] == most->second) g.last_ranks.push_back(rank_number);
      r.join.push_back(std::move(g));
    }
    if (r.join.empty()) r.join_reason = "no step holds the same collectives on two or more ranks";
  }

  // Groups: over all ranks first, then per rank.
  for (auto& [key, g] : groups) {
    TraceStepGroup out_group;
    out_group.phase = g.phase;
    out_group.batch = g.batch;
    if (!g.tokens.empty()) out_group.tokens = static_cast<int>(std::lround(median(g.tokens)));
    if (std::get<0>(key) >= 0) out_group.rank = std::get<0>(key);
    out_group.steps = g.wall.size();
    out_group.wall_us = stats_or_zero(std::move(g.wall));
    out_group.busy_us = stats_or_zero(std::move(g.busy));
    out_group.idle_us = stats_or_zero(std::move(g.idle));
    if (!g.host.empty()) out_group.host_us = summarize(std::move(g.host));
    out_group.comm_merged_us = stats_or_zero(std::move(g.merged));
    out_group.comm_overlapped_us = stats_or_zero(std::move(g.overlapped));
    out_group.comm_exposed_us = stats_or_zero(std::move(g.exposed));
    out_group.comm_share = g.wall_total > 0 ? g.merged_total / g.wall_total : 0.0;
    out_group.exposed_share = g.wall_total > 0 ? g.exposed_total / g.wall_total : 0.0;
    out_group.comm_kernel_share = g.kernel_sum_total > 0 ? g.comm_sum_total / g.kernel_sum_total : 0.0;
    for (std::size_t c = 0; c < kClassCount; ++c) {
      if (g.classes[c].merged_total <= 0 && median(g.classes[c].count) == 0) continue;
      TraceClassShare cs;
      cs.cls = kKernelClasses[c].key;
      cs.kernels_per_step = median(g.classes[c].count);
      cs.sum_us = stats_or_zero(std::move(g.classes[c].sum));
      cs.merged_us = stats_or_zero(std::move(g.classes[c].merged));
      cs.share = g.wall_total > 0 ? g.classes[c].merged_total / g.wall_total : 0.0;
      out_group.classes.push_back(std::move(cs));
    }
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
      ks.launch = pk.launches.size() > 1 ? "mixed"
                  : pk.launches.empty()
                      ? "unknown"
                      : std::string(*pk.launches.begin() == LaunchMode::graph   ? "graph"
                                    : *pk.launches.begin() == LaunchMode::eager ? "eager"
                                                                                : "unknown");
      out_group.kinds.push_back(std::move(ks));
    }
    r.groups.push_back(std::move(out_group));
  }

  // Unclassified kernels, largest first.
  for (std::uint32_t n = 0; n < unclassified_time.size(); ++n) {
    if (unclassified_time[n].first == 0) continue;
    UnclassifiedKernel u;
    u.name = trace.names[n];
    u.count = unclassified_time[n].first;
    u.sum_us = us(static_cast<std::int64_t>(unclassified_time[n].second));
    u.share = kernel_time_total > 0
                  ? static_cast<double>(unclassified_time[n].second) / static_cast<double>(kernel_time_total)
                  : 0.0;
    r.unclassified_share += u.share;
    r.unclassified.push_back(std::move(u));
  }
  std::stable_sort(
      r.unclassified.begin(), r.unclassified.end(),
      [](const UnclassifiedKernel& a, const UnclassifiedKernel& b) { return a.sum_us > b.sum_us; });
  if (r.unclassified.size() > kMaxUnclassified) r.unclassified.resize(kMaxUnclassified);

  // The CUDA-graph caveat: graph-replayed collectives carry no sizes.
  if (r.sizes_unknown > 0)
    r.notes.push_back(fmt::format(
        "{} of {} collective kernels have no size in the trace{}{}", r.sizes_unknown,
        r.sizes_trace + r.sizes_model + r.sizes_unknown,
        graph_unknown > 0
            ? fmt::format(" ({} of them replayed by CUDA graphs, whose kernels carry no collective metadata)",
                          graph_unknown)
            : " (no c10d record_param_comms args on them, no NCCL NVTX payload)",
        settings.model ? "; --model sizes AllReduces only in steps whose mark gives the batch"
                       : "; --model CONFIG sizes AllReduces from each step's batch"));

  // The collectives as records: one communicator, sequence numbers per kind lined up across ranks by time.
  InspectorCapture& rec = out.records;
  for (const TraceFile& f : trace.files) {
    InputFile in;
    in.path = f.path;
    in.format = f.format;
    in.trace_events = f.events;
    in.gpu_activities = f.kernels + f.copies;
    in.graph_launches = f.graph_launches;
    in.kernels = f.kernels;
    in.step_marks = f.step_marks;
    in.cut = f.cut;
    in.cut_reason = f.cut_reason;
    rec.files.push_back(std::move(in));
  }
  rec.kinds = kinds;
  rec.timing_sources = {"kernel_gpu"};
  const RankWork* comm_reference = nullptr;
  for (const RankWork& w : work)
    if (!comm_reference || w.comm.size() > comm_reference->comm.size()) comm_reference = &w;
  int n_ranks = 0;
  for (const TraceRank& rank : trace.ranks) n_ranks = std::max({n_ranks, rank.world_size, rank.rank + 1});
  // Ordinal offsets: a rank's first collective of a kind lines up with the reference rank's one it overlaps
  // most.
  std::map<std::pair<const RankWork*, std::uint16_t>, std::int64_t> offset;
  std::int64_t lowest = 0;
  if (comm_reference && !comm_reference->comm.empty()) {
    std::map<std::uint16_t, std::vector<std::uint32_t>> ref_kind;
    for (std::uint32_t i : comm_reference->comm) ref_kind[classes.kind_of(trace.activities[i])].push_back(i);
    for (const RankWork& w : work) {
      if (&w == comm_reference) continue;
      std::map<std::uint16_t, std::vector<std::uint32_t>> own;
      for (std::uint32_t i : w.comm) own[classes.kind_of(trace.activities[i])].push_back(i);
      for (const auto& [k, list] : own) {
        const auto ref = ref_kind.find(k);
        bool found = false;
        for (std::size_t i = 0; i < list.size() && i < 16 && ref != ref_kind.end() && !found; ++i) {
          const GpuActivity& a = trace.activities[list[i]];
          const auto& rl = ref->second;
          const auto at = std::lower_bound(
              rl.begin(), rl.end(), a.start_ns,
              [&](std::uint32_t x, std::int64_t t) { return trace.activities[x].end_ns < t; });
          std::int64_t best = 0;
          for (auto it = at; it != rl.end() && trace.activities[*it].start_ns < a.end_ns; ++it) {
            const GpuActivity& b = trace.activities[*it];
            const std::int64_t overlap = std::min(a.end_ns, b.end_ns) - std::max(a.start_ns, b.start_ns);
            if (overlap > best) {
              best = overlap;
              offset[{&w, k}] = (it - rl.begin()) - static_cast<std::int64_t>(i);
              found = true;
            }
          }
        }
        if (!found && ref != ref_kind.end() && trace.ranks[w.index].absolute_clock)
          r.notes.push_back(
              fmt::format("rank {}: its {} kernels overlap none of rank {}'s: numbered from its first",
                          trace.ranks[w.index].rank, kinds[k], trace.ranks[comm_reference->index].rank));
        lowest = std::min(lowest, offset[{&w, k}]);
      }
    }
  }
  for (const RankWork& w : work) {
    if (w.comm.empty()) continue;
    const TraceRank& rank = trace.ranks[w.index];
    RankStream stream;
    stream.comm_id = kTraceCommunicatorId;
    stream.rank = rank.rank;
    stream.n_ranks = std::max(n_ranks, 1);
    stream.hostname = file_name(trace.files[rank.file].path);
    stream.format_version = trace.files[rank.file].format;
    stream.file = rank.file;
    const auto stream_index = static_cast<std::uint32_t>(rec.streams.size());
    rec.streams.push_back(std::move(stream));
    std::map<std::uint16_t, std::uint64_t> ordinal;
    for (std::size_t c = 0; c < w.comm.size(); ++c) {
      const GpuActivity& a = trace.activities[w.comm[c]];
      const std::uint16_t k = classes.kind_of(a);
      OpRecord op;
      op.stream = stream_index;
      op.kind = k;
      const auto found = offset.find({&w, k});
      op.sn = static_cast<std::uint64_t>(static_cast<std::int64_t>(ordinal[k]++) +
                                         (found == offset.end() ? 0 : found->second) - lowest);
      op.bytes = a.bytes;
      op.exec_us = us(a.end_ns - a.start_ns);
      op.start_ts = a.start_ns > 0 ? static_cast<std::uint64_t>(a.start_ns / 1000) : 0;
      op.launch = static_cast<std::uint8_t>(a.launch);
      op.bytes_source = w.comm_source[c];
      if (w.comm_step[c] >= 0) {
        const auto s = static_cast<std::size_t>(w.comm_step[c]);
        op.step = w.joined[s];
        op.phase = phase_char(w.steps[s].phase);
      }
      op.busbw_gbps = op.algbw_gbps = std::nan("");
      rec.files[rank.file].coll_records += 1;
      rec.ops.push_back(op);
    }
  }
  out.step_method = rec.ops.empty() ? "" : r.step_method;
  return out;
}

}  // namespace k25
