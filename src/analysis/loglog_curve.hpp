// A measured curve value(tokens) estimated at any token count by log-log interpolation between measured
// points.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace k25 {

// How an estimate came about: at a measured token count, between two measured ones, or beyond the measured
// range.
enum class EstimateSource { measured, interpolated, extrapolated };

const char* to_string(EstimateSource source);
EstimateSource parse_estimate_source(const std::string_view name);  // throws std::invalid_argument

struct CurvePoint {
  double tokens = 0;
  double value = 0;
};

struct CurveEstimate {
  double value = 0;
  EstimateSource source = EstimateSource::measured;
};

// Points with positive tokens and values, sorted by tokens; one point per token count (the last one given
// wins).
class LogLogCurve {
 public:
  explicit LogLogCurve(std::vector<CurvePoint> points);

  // Exact value at a measured token count; otherwise a straight line on log(tokens)-log(value) axes through
  // the two neighbouring points (interpolated) or through the two outermost points on that side
  // (extrapolated). Empty when the curve has no point, or only one point and `tokens` is not it.
  std::optional<CurveEstimate> at(double tokens) const;

  const std::vector<CurvePoint>& points() const { return points_; }

 private:
  std::vector<CurvePoint> points_;
};

}  // namespace k25
