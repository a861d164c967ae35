// The alternative's curves: found by kind, built point by point.
#include "predict/predict_inputs.hpp"

#include <algorithm>

namespace k25 {

const AltCurve* find_curve(const AltDocument& alt, const std::string& kind) {
  const auto with_kind = [&](const std::string& wanted) -> const AltCurve* {
    const auto it = std::find_if(alt.curves.begin(), alt.curves.end(),
                                 [&](const AltCurve& c) { return c.kind == wanted; });
    return it == alt.curves.end() ? nullptr : &*it;
  };
  if (const AltCurve* curve = with_kind(kind)) return curve;
  if (kind == "alltoallv") return with_kind("alltoall");
  if (kind == "alltoall") return with_kind("alltoallv");
  return nullptr;
}

void add_point(AltDocument& alt, const std::string& kind, const std::string& dtype, const AltPoint& point) {
  auto curve = std::find_if(alt.curves.begin(), alt.curves.end(),
                            [&](const AltCurve& c) { return c.kind == kind && c.dtype == dtype; });
  if (curve == alt.curves.end()) curve = alt.curves.insert(alt.curves.end(), AltCurve{kind, dtype, {}});
  std::vector<AltPoint>& points = curve->points;
  const auto at = std::lower_bound(points.begin(), points.end(), point.bytes,
                                   [](const AltPoint& p, double bytes) { return p.bytes < bytes; });
  if (at != points.end() && at->bytes == point.bytes)
    *at = point;
  else
    points.insert(at, point);
}

}  // namespace k25
