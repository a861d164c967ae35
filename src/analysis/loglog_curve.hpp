// A measured curve value(size) estimated at any size by log-log interpolation between measured points: a
// step's time against token counts (the attribution), an op's time against bytes (predict).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace k25 {

// How an estimate came about: at a measured size, between two measured ones, or beyond the measured range.
enum class EstimateSource { measured, interpolated, extrapolated };

const char* to_string(EstimateSource source);
EstimateSource parse_estimate_source(const std::string_view name);  // throws std::invalid_argument

struct CurvePoint {
  double size = 0;  // where the curve is measured: a token count, or bytes
  double value = 0;
};

struct CurveEstimate {
  double value = 0;
  EstimateSource source = EstimateSource::measured;
};

// Points with positive sizes and values, sorted by size; one point per size (the last one given wins).
class LogLogCurve {
 public:
  explicit LogLogCurve(std::vector<CurvePoint> points);

  // Exact value at a measured size; otherwise a straight line on log(size)-log(value) axes through the two
  // neighbouring points (interpolated) or through the two outermost points on that side (extrapolated).
  // Empty when the curve has no point, or only one point and `size` is not it.
  std::optional<CurveEstimate> at(double size) const;

  const std::vector<CurvePoint>& points() const { return points_; }

 private:
  std::vector<CurvePoint> points_;
};

}  // namespace k25
