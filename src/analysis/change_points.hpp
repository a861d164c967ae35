// Change points of a series of nightly figures: E-divisive with means (Matteson and James, "A Nonparametric
// Approach for Multiple Change Point Analysis of Multivariate Data", JASA 2014) with the significance test
// and the split and merge steps of Hunter (Fleming et al., "Hunter: Using Change Point Detection to Hunt for
// Performance Regressions", ICPE 2023), as Apache Otava implements them: each candidate split is kept when a
// two-sided Student's t-test between the segments on its two sides rejects equal means. Pure data in, change
// points out: deterministic (no permutations).
#pragma once

#include <vector>

namespace k25 {

struct ChangePointRules {
  double max_pvalue = 0.001;  // a change point's t-test p-value must be at most this (Otava's default)
  int window = 50;            // the split step's sliding window, in nights (Otava's default)
  // A change point whose means differ by less than this (relative) is merged away even when significant.
  double min_magnitude = 0.0;
  bool operator==(const ChangePointRules&) const = default;
};

struct ChangePoint {
  int index = 0;      // the first point after the change (never 0)
  double qhat = 0;    // the E-divisive divergence that proposed it
  double pvalue = 1;  // Student's t-test between the segments on its two sides
  double mean_before = 0, mean_after = 0;
  double stddev_before = 0, stddev_after = 0;  // sample standard deviations
  int points_before = 0, points_after = 0;
  // max(|after / before - 1|, |before / after - 1|); 0 where a mean is 0.
  double magnitude() const;
};

// The change points of `series` (oldest first), by index. The split step runs E-divisive in sliding windows
// of `window` points (half a window apart) with a relaxed first-pass p-value (10x max_pvalue below 0.05, as
// Hunter's weak change points); the merge step then removes, one at a time, the change point with the largest
// p-value above max_pvalue, or else the smallest magnitude not above min_magnitude, and recomputes its
// neighbours' tests over the joined segment.
std::vector<ChangePoint> find_change_points(const std::vector<double>& series, const ChangePointRules& rules);

}  // namespace k25
