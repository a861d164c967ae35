// CUDA-graph padding of token counts, as vLLM pads a decode batch to its next capture size, and the sweep's
// measurement schedule that follows from it: which token counts are measured, in which modes, for which
// requested counts. Pure data: no MPI, no GPU.
#pragma once

#include <string>
#include <vector>

#include "common/vocabulary.hpp"

namespace k25 {

// One requested token count and the count a timing mode measures it at.
struct GraphPadding {
  int requested = 0;  // tokens the sweep asked for
  int padded = 0;     // tokens measured: graph mode, the smallest capture size >= requested; else requested
  // Graph mode only: requested is above the largest capture size, so it is not padded (padded == requested);
  // vLLM runs such a batch eagerly, without a graph.
  bool above_largest = false;
};

// Pads `requested` (>= 1) to the smallest of `graph_sizes` (ascending, non-empty) that is >= requested; above
// the largest size it stays as it is and above_largest is set. E.g. with vLLM's sizes 3 -> 4, 9 -> 16,
// 250 -> 256, 600 -> 600 (above 512).
GraphPadding pad_to_graph_size(int requested, const std::vector<int>& graph_sizes);

// Whether a timing mode pads (graph) or measures the requested count as it is (eager).
bool mode_pads(TimingMode mode);

// The requested counts one mode measures at one token count.
struct ModeRequests {
  TimingMode mode = TimingMode::eager;
  std::vector<GraphPadding> requests;  // in sweep order; several where graph padding maps them together
};

// One token count the sweep measures: its plan is built once, each mode in `modes` is measured once, and the
// result is reported for each of that mode's requested counts.
struct MeasuredCount {
  int tokens = 0;
  std::vector<ModeRequests> modes;  // in the order of the sweep's modes
};

// The schedule of a sweep: every (requested count, mode) lands on exactly one entry, at its padded count.
// Entries are in order of first need while walking `tokens` in order and, for each, `modes` in order. Eager
// counts are never padded; two graph counts that pad to the same size share one measurement. Duplicate
// requested counts are measured once.
std::vector<MeasuredCount> measured_counts(const std::vector<int>& tokens,
                                           const std::vector<TimingMode>& modes,
                                           const std::vector<int>& graph_sizes);

// What graph padding does in a schedule, in words: "3 -> 4, 5 -> 8; 600 above the largest capture size 512:
// not padded (vLLM runs it eagerly)"; empty where every graph count is a capture size already.
std::string describe_graph_padding(const std::vector<MeasuredCount>& schedule,
                                   const std::vector<int>& graph_sizes);

}  // namespace k25
