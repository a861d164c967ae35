// Interval arithmetic on a GPU timeline (nanoseconds): the union of busy intervals, its measure inside a
// window, and the intersection of two unions (HolisticTraceAnalysis's merged and overlapped times).
#pragma once

#include <cstdint>
#include <vector>

namespace k25 {

struct Interval {
  std::int64_t start = 0, end = 0;  // end >= start
};

// The union of a set of intervals as sorted disjoint intervals, with prefix sums for windowed measures.
class MergedIntervals {
 public:
  MergedIntervals() = default;
  explicit MergedIntervals(std::vector<Interval> intervals);  // any order; empty ones are dropped
  static MergedIntervals from_disjoint(std::vector<Interval> sorted_disjoint);

  std::int64_t total() const { return prefix_.empty() ? 0 : prefix_.back(); }
  // The measure of the union inside [lo, hi).
  std::int64_t measure_in(std::int64_t lo, std::int64_t hi) const;
  const std::vector<Interval>& intervals() const { return intervals_; }
  bool empty() const { return intervals_.empty(); }

 private:
  void index();
  std::vector<Interval> intervals_;
  std::vector<std::int64_t> prefix_;  // prefix_[i]: measure of intervals_[0..i]
};

// The intersection of two unions, as a union.
MergedIntervals intersect(const MergedIntervals& a, const MergedIntervals& b);

}  // namespace k25
