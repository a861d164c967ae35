// The trace analysis's working state, shared by its steps (classes, steps, per-rank figures, sizes, per-step
// figures, join, records): each rank's activities, unions and steps, and the run's step groups as they fill.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "capture/analysis/intervals.hpp"
#include "capture/analysis/trace_analysis.hpp"
#include "capture/analysis/trace_classes.hpp"
#include "capture/analysis/trace_steps.hpp"

namespace k25 {

inline constexpr std::size_t kClassCount = kKernelClasses.size();

inline double to_us(std::int64_t ns) {
  return static_cast<double>(ns) / 1000.0;
}

inline std::size_t class_index(KernelClass c) {
  return static_cast<std::size_t>(c);
}

// Where a collective's size came from (OpRecord::bytes_source).
enum SizeSource : std::uint8_t { kSizeFromTrace = 0, kSizeFromModel = 1, kSizeUnknown = 2 };

// One rank's GPU time as unions of intervals, for whole-trace and per-step measures.
struct RankUnions {
  MergedIntervals busy;     // kernels, copies and sets
  MergedIntervals comm;     // communication kernels
  MergedIntervals overlap;  // comm ∩ the other kernels
  std::array<MergedIntervals, kClassCount> by_class;
  std::map<std::uint16_t, MergedIntervals> by_kind;
};

// One rank's working data.
struct RankWork {
  std::uint32_t index = 0;          // into TraceCapture::ranks
  std::vector<std::uint32_t> acts;  // its activities by start
  std::vector<std::uint32_t> comm;  // its communication kernels by start
  std::vector<const StepMark*> marks;
  std::vector<TraceStep> steps;
  std::optional<MarkFamily> family;
  std::vector<std::uint32_t> marks_without_work;  // names of its marks that launched no GPU work
  std::string pattern_reason;
  RankUnions unions;
  std::vector<std::int32_t> comm_step;    // per communication kernel: its step (-1: none)
  std::vector<std::uint8_t> comm_source;  // per communication kernel: its SizeSource
  std::vector<std::int64_t> joined;       // per step: the reference rank's step it lines up with (-1: none)
  // Its part of the run's kernel time and of the unclassified kernels' (name -> count, summed ns), added to
  // the run's once every rank's figures are made (the ranks' figures are made at once on two cores).
  std::int64_t kernel_time = 0;
  std::map<std::uint32_t, std::pair<std::uint64_t, std::uint64_t>> unclassified;
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
// (rank or -1, phase order, batch or -1) -> its samples.
using StepGroups = std::map<std::tuple<int, int, int>, GroupAccumulator>;

// The whole working state: the trace (its collectives' sizes filled in as they are found), its classes, the
// ranks in rank order and what every step adds up.
struct TraceWork {
  TraceWork(TraceCapture&& captured, const KernelClassifier& classifier, const TraceSettings& given);

  TraceCapture trace;
  TraceClasses classes;
  TraceSettings settings;
  std::vector<RankWork> ranks;      // in rank order
  std::int64_t origin = INT64_MAX;  // the run's first GPU activity
  StepGroups groups;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> unclassified;  // per name: count, summed ns
  std::int64_t kernel_time_total = 0;
  std::uint64_t graph_unknown = 0;  // collectives without a size that a CUDA graph replayed
};

// Merged and overlapped nanoseconds as microseconds, with exposed and the overlap percentage.
CommOverlap comm_overlap(std::int64_t merged_ns, std::int64_t overlapped_ns);

// The steps of the analysis, in the order analyze_trace runs them.
// Steps: the method for the run (marks where any rank has them, else the collectives' pattern, else gaps).
void find_steps(TraceWork& work, TraceResult& result);
// Per rank: whole-trace figures and the rank's unions (and its steps, where they are the GPU's idle gaps); it
// reads the work and writes only `rank`, so the ranks' figures can be made at once.
TraceRankResult rank_figures(const TraceWork& work, RankWork& rank, const std::string& step_method);
// Per rank: each collective's step and size (the trace's, else --model's from the step's batch).
void collective_sizes(TraceWork& work, RankWork& rank, TraceResult& result);
// Per rank: each step's row (capture-steps.csv) and its samples into the groups.
void step_figures(TraceWork& work, const RankWork& rank, TraceResult& result);
// The groups' samples into the result's step groups (over all ranks first, then per rank).
void finish_groups(TraceWork& work, TraceResult& result);
// Steps lined up across ranks by their GPU windows, and the live join cost of their collectives.
void join_ranks(TraceWork& work, TraceResult& result);
// Per (kind, size, backend) over all ranks: which backend ran, how often, its op time; the engines' rules
// that would have chosen another backend on another link.
void backend_rows(const TraceWork& work, TraceResult& result);
// The kernels no class took, largest first.
void unclassified_kernels(const TraceWork& work, TraceResult& result);
// The collectives as op records of communicator kTraceCommunicatorId, for the communicator analysis.
InspectorCapture trace_records(const TraceWork& work, TraceResult& result);

}  // namespace k25
