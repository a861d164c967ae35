// E-divisive change points with Hunter's t-test, split and merge steps (change_points.hpp).
#include "analysis/change_points.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <boost/math/distributions/students_t.hpp>

namespace k25 {
namespace {

// A candidate split: the first index after it and the divergence that proposed it.
struct Candidate {
  int index = 0;
  double qhat = 0;
};

// Pairwise distances |Z_i - Z_j| of series[lo, hi) with 2-D prefix sums, so that the sum over any block of
// pairs is four lookups.
class PairDistances {
 public:
  PairDistances(const std::vector<double>& series, int lo, int hi)
      : lo_(lo), n_(hi - lo), sums_((n_ + 1) * (n_ + 1), 0.0) {
    for (int i = 0; i < n_; ++i)
      for (int j = 0; j < n_; ++j)
        at(i + 1, j + 1) = std::abs(series[lo + i] - series[lo + j]) + at(i, j + 1) + at(i + 1, j) - at(i, j);
  }
  // The sum of |Z_i - Z_j| over i in [a, b) and j in [c, d) (series indices).
  double block(int a, int b, int c, int d) const {
    a -= lo_, b -= lo_, c -= lo_, d -= lo_;
    return get(b, d) - get(a, d) - get(b, c) + get(a, c);
  }

 private:
  double& at(int i, int j) { return sums_[static_cast<std::size_t>(i * (n_ + 1) + j)]; }
  double get(int i, int j) const { return sums_[static_cast<std::size_t>(i * (n_ + 1) + j)]; }
  int lo_, n_;
  std::vector<double> sums_;
};

// Q(X, Y) = n m / (n + m) E(X, Y) for X = Z[start, tau) and Y = Z[tau, kappa) (n and m points), with E the
// energy distance at alpha 1: 2 mean|X - Y| - mean|X - X'| - mean|Y - Y'| (a mean within one point is 0).
double divergence(const PairDistances& d, int start, int tau, int kappa) {
  const double n = tau - start, m = kappa - tau;
  double q = 2.0 / (n + m) * d.block(start, tau, tau, kappa);
  if (n > 1) q -= 2.0 * m / ((n + m) * (n - 1)) * d.block(start, tau, start, tau) / 2.0;
  if (m > 1) q -= 2.0 * n / ((n + m) * (m - 1)) * d.block(tau, kappa, tau, kappa) / 2.0;
  return q;
}

// The best split of [start, stop): the tau and kappa (start < tau < kappa <= stop) that maximize Q; the first
// such pair where several do.
Candidate best_split(const PairDistances& d, int start, int stop) {
  Candidate best{0, -std::numeric_limits<double>::infinity()};
  for (int tau = start + 1; tau < stop; ++tau)
    for (int kappa = tau + 1; kappa <= stop; ++kappa) {
      const double q = divergence(d, start, tau, kappa);
      if (q > best.qhat) best = {tau, q};
    }
  return best;
}

// The segments between consecutive change points of [lo, hi), as [start, stop) pairs.
std::vector<std::pair<int, int>> segments(int lo, int hi, const std::vector<int>& points) {
  std::vector<std::pair<int, int>> out;
  int start = lo;
  for (const int point : points) {
    if (point > start && point < hi) {
      out.emplace_back(start, point);
      start = point;
    }
  }
  out.emplace_back(start, hi);
  return out;
}

// Student's two-sample t-test (pooled variance, two-sided) of series[a, split) against series[split, b).
ChangePoint tested(const std::vector<double>& series, int a, int split, int b, double qhat) {
  ChangePoint point;
  point.index = split;
  point.qhat = qhat;
  const auto moments = [&](int from, int to, double& mean, double& variance) {
    const double n = to - from;
    mean = 0;
    for (int i = from; i < to; ++i) mean += series[i];
    mean /= n;
    variance = 0;
    for (int i = from; i < to; ++i) variance += (series[i] - mean) * (series[i] - mean);
    variance = n > 1 ? variance / (n - 1) : 0.0;
  };
  double var_before = 0, var_after = 0;
  moments(a, split, point.mean_before, var_before);
  moments(split, b, point.mean_after, var_after);
  point.stddev_before = std::sqrt(var_before);
  point.stddev_after = std::sqrt(var_after);
  point.points_before = split - a;
  point.points_after = b - split;
  const double n1 = point.points_before, n2 = point.points_after;
  const double df = n1 + n2 - 2;
  if (df <= 0) return point;  // p-value 1: two points tell nothing of how different they may be
  const double pooled = ((n1 - 1) * var_before + (n2 - 1) * var_after) / df;
  const double difference = point.mean_after - point.mean_before;
  if (!(pooled > 0)) {
    point.pvalue = difference == 0 ? 1.0 : 0.0;
    return point;
  }
  const double t = difference / std::sqrt(pooled * (1 / n1 + 1 / n2));
  if (!std::isfinite(t)) return point;
  const boost::math::students_t distribution(df);
  point.pvalue = std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(distribution, std::abs(t))));
  return point;
}

// E-divisive in series[lo, hi): the best split over the current segments, kept while its t-test passes.
std::vector<int> divide(const std::vector<double>& series, int lo, int hi, double max_pvalue) {
  const PairDistances distances(series, lo, hi);
  std::vector<int> points;
  while (true) {
    Candidate best{0, -std::numeric_limits<double>::infinity()};
    std::pair<int, int> where{0, 0};
    for (const auto& [start, stop] : segments(lo, hi, points)) {
      if (stop - start < 2) continue;
      const Candidate candidate = best_split(distances, start, stop);
      if (candidate.qhat > best.qhat) {
        best = candidate;
        where = {start, stop};
      }
    }
    if (best.index == 0) break;
    if (tested(series, where.first, best.index, where.second, best.qhat).pvalue > max_pvalue) break;
    points.insert(std::upper_bound(points.begin(), points.end(), best.index), best.index);
  }
  return points;
}

}  // namespace

double ChangePoint::magnitude() const {
  if (mean_before == 0 || mean_after == 0) return 0;
  return std::max(std::abs(mean_after / mean_before - 1.0), std::abs(mean_before / mean_after - 1.0));
}

std::vector<ChangePoint> find_change_points(const std::vector<double>& series,
                                            const ChangePointRules& rules) {
  const int n = static_cast<int>(series.size());
  for (const double value : series)
    if (!std::isfinite(value)) return {};
  const double first_pass = rules.max_pvalue < 0.05  ? rules.max_pvalue * 10
                            : rules.max_pvalue < 0.5 ? rules.max_pvalue * 2
                                                     : rules.max_pvalue;
  const int window = std::max(rules.window, 2);
  const int step = std::max(window / 2, 1);
  // Split: weak change points from overlapping windows.
  std::vector<int> weak;
  for (int start = 0; start < n;) {
    const int end = std::min(start + window, n);
    const std::vector<int> found = divide(series, start, end, first_pass);
    for (const int point : found)
      if (std::find(weak.begin(), weak.end(), point) == weak.end()) weak.push_back(point);
    start = std::max(found.empty() ? 0 : found.back(), start + step);
  }
  std::sort(weak.begin(), weak.end());
  // Each change point tested over the segments its neighbours bound.
  std::vector<ChangePoint> points;
  const auto retest = [&](std::size_t i) {
    const int before = i == 0 ? 0 : points[i - 1].index;
    const int after = i + 1 == points.size() ? n : points[i + 1].index;
    points[i] = tested(series, before, points[i].index, after, points[i].qhat);
  };
  for (const int index : weak) points.push_back(ChangePoint{index, 0.0});
  for (std::size_t i = 0; i < points.size(); ++i) {
    // The divergence of the split over its own segments, for the record (windows do not keep theirs).
    const int before = i == 0 ? 0 : points[i - 1].index;
    const int after = i + 1 == points.size() ? n : points[i + 1].index;
    points[i].qhat = divergence(PairDistances(series, before, after), before, points[i].index, after);
    retest(i);
  }
  // Merge: drop the weakest until every one left is significant and large enough.
  while (!points.empty()) {
    auto weakest =
        std::max_element(points.begin(), points.end(),
                         [](const ChangePoint& a, const ChangePoint& b) { return a.pvalue < b.pvalue; });
    if (weakest->pvalue <= rules.max_pvalue) {
      weakest = std::min_element(
          points.begin(), points.end(),
          [](const ChangePoint& a, const ChangePoint& b) { return a.magnitude() < b.magnitude(); });
      if (weakest->magnitude() > rules.min_magnitude) break;
    }
    const std::size_t removed = static_cast<std::size_t>(weakest - points.begin());
    points.erase(weakest);
    if (removed > 0) retest(removed - 1);
    if (removed < points.size()) retest(removed);
  }
  return points;
}

}  // namespace k25
