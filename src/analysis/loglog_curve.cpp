// Log-log interpolation and extrapolation of a measured curve.
#include "analysis/loglog_curve.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace k25 {

const char* to_string(EstimateSource source) {
  switch (source) {
    case EstimateSource::measured:
      return "measured";
    case EstimateSource::interpolated:
      return "interpolated";
    case EstimateSource::extrapolated:
      return "extrapolated";
  }
  return "?";
}

EstimateSource parse_estimate_source(const std::string_view name) {
  if (name == "measured") return EstimateSource::measured;
  if (name == "interpolated") return EstimateSource::interpolated;
  if (name == "extrapolated") return EstimateSource::extrapolated;
  throw std::invalid_argument("unknown estimate source '" + std::string(name) + "'");
}

LogLogCurve::LogLogCurve(std::vector<CurvePoint> points) {
  std::erase_if(points, [](const CurvePoint& p) { return !(p.size > 0) || !(p.value > 0); });
  std::stable_sort(points.begin(), points.end(),
                   [](const CurvePoint& a, const CurvePoint& b) { return a.size < b.size; });
  for (const CurvePoint& p : points) {
    if (!points_.empty() && points_.back().size == p.size) {
      points_.back() = p;
    } else {
      points_.push_back(p);
    }
  }
}

namespace {

// Value at `size` on the straight log-log line through a and b.
double log_log_line(const CurvePoint& a, const CurvePoint& b, double size) {
  const double slope = (std::log(b.value) - std::log(a.value)) / (std::log(b.size) - std::log(a.size));
  return std::exp(std::log(a.value) + slope * (std::log(size) - std::log(a.size)));
}

}  // namespace

std::optional<CurveEstimate> LogLogCurve::at(double size) const {
  if (points_.empty() || !(size > 0)) return std::nullopt;
  const auto exact =
      std::find_if(points_.begin(), points_.end(), [size](const CurvePoint& p) { return p.size == size; });
  if (exact != points_.end()) return CurveEstimate{exact->value, EstimateSource::measured};
  if (points_.size() < 2) return std::nullopt;
  if (size < points_.front().size) {
    return CurveEstimate{log_log_line(points_[0], points_[1], size), EstimateSource::extrapolated};
  }
  if (size > points_.back().size) {
    const std::size_t n = points_.size();
    return CurveEstimate{log_log_line(points_[n - 2], points_[n - 1], size), EstimateSource::extrapolated};
  }
  const auto upper = std::upper_bound(points_.begin(), points_.end(), size,
                                      [](double s, const CurvePoint& p) { return s < p.size; });
  return CurveEstimate{log_log_line(*(upper - 1), *upper, size), EstimateSource::interpolated};
}

}  // namespace k25
