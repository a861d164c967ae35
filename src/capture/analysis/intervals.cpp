// Union, windowed measure and intersection of GPU busy intervals.
#include "capture/analysis/intervals.hpp"

#include <algorithm>

namespace k25 {

MergedIntervals::MergedIntervals(std::vector<Interval> intervals) {
  const auto by_start = [](const Interval& a, const Interval& b) { return a.start < b.start; };
  if (!std::is_sorted(intervals.begin(), intervals.end(), by_start))  // most come by start already
    std::sort(intervals.begin(), intervals.end(), by_start);
  // Merged in place: the union is written over the intervals it came from.
  std::size_t kept = 0;
  for (const Interval& i : intervals) {
    if (i.end <= i.start) continue;
    if (kept > 0 && i.start <= intervals[kept - 1].end)
      intervals[kept - 1].end = std::max(intervals[kept - 1].end, i.end);
    else
      intervals[kept++] = i;
  }
  intervals.resize(kept);
  intervals_ = std::move(intervals);
  index();
}

MergedIntervals MergedIntervals::from_disjoint(std::vector<Interval> sorted_disjoint) {
  MergedIntervals m;
  m.intervals_ = std::move(sorted_disjoint);
  m.index();
  return m;
}

void MergedIntervals::index() {
  prefix_.resize(intervals_.size());
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < intervals_.size(); ++i) {
    sum += intervals_[i].end - intervals_[i].start;
    prefix_[i] = sum;
  }
}

std::int64_t MergedIntervals::measure_in(std::int64_t lo, std::int64_t hi) const {
  if (hi <= lo || intervals_.empty()) return 0;
  // First interval ending after lo, first starting at or after hi.
  const auto first = std::upper_bound(intervals_.begin(), intervals_.end(), lo,
                                      [](std::int64_t t, const Interval& i) { return t < i.end; });
  const auto last = std::lower_bound(intervals_.begin(), intervals_.end(), hi,
                                     [](const Interval& i, std::int64_t t) { return i.start < t; });
  if (first >= last) return 0;
  const auto a = static_cast<std::size_t>(first - intervals_.begin());
  const auto b = static_cast<std::size_t>(last - intervals_.begin()) - 1;
  std::int64_t sum = prefix_[b] - (a == 0 ? 0 : prefix_[a - 1]);
  sum -= std::max<std::int64_t>(0, lo - intervals_[a].start);
  sum -= std::max<std::int64_t>(0, intervals_[b].end - hi);
  return sum;
}

MergedIntervals intersect(const MergedIntervals& a, const MergedIntervals& b) {
  std::vector<Interval> out;
  const auto& x = a.intervals();
  const auto& y = b.intervals();
  std::size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    const std::int64_t lo = std::max(x[i].start, y[j].start), hi = std::min(x[i].end, y[j].end);
    if (hi > lo) out.push_back({lo, hi});
    if (x[i].end < y[j].end)
      ++i;
    else
      ++j;
  }
  return MergedIntervals::from_disjoint(std::move(out));
}

}  // namespace k25
