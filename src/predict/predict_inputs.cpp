// The base's exposed part, and the alternative's curves: found for a base kind, built point by point.
#include "predict/predict_inputs.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/error.hpp"
#include "predict/kind_names.hpp"

namespace k25 {

double exposed_part(double comm_us, double hidden_us) {
  return std::max(0.0, comm_us - hidden_us);
}

namespace {

bool same_kind(const std::string& a, const std::string& b) {
  const auto all_to_all = [](const std::string& k) { return k == "alltoall" || k == "alltoallv"; };
  return a == b || (all_to_all(a) && all_to_all(b));
}

}  // namespace

const AltCurve* find_curve(const std::vector<AltCurve>& curves, const BaseKind& wanted,
                           std::string& why_not) {
  why_not.clear();
  std::vector<const AltCurve*> of_kind;
  for (const AltCurve& c : curves)
    if (same_kind(c.kind, wanted.kind)) of_kind.push_back(&c);
  if (of_kind.empty()) return nullptr;
  const auto narrowed = [](std::vector<const AltCurve*> list, auto keep) {
    std::vector<const AltCurve*> kept;
    for (const AltCurve* c : list)
      if (keep(*c)) kept.push_back(c);
    return kept.empty() ? list : kept;
  };
  if (!wanted.name.empty())
    of_kind = narrowed(of_kind, [&](const AltCurve& c) { return c.name == wanted.name; });
  if (of_kind.size() == 1) return of_kind.front();
  for (const AltCurve* c : of_kind)
    if (!wanted.dtype.empty() && c->dtype == wanted.dtype) return c;
  std::vector<std::string> dtypes;
  for (const AltCurve* c : of_kind) dtypes.push_back(c->dtype.empty() ? "a dtype not said" : c->dtype);
  why_not = fmt::format(
      "measured in {}, and {}", fmt::join(dtypes, ", "),
      wanted.dtype.empty() ? "the base does not say its dtype" : "not in the base's " + wanted.dtype);
  return nullptr;
}

void check_plausible(const AltDocument& alt) {
  for (const std::vector<AltCurve>* curves : {&alt.curves, &alt.shaped})
    for (const AltCurve& c : *curves)
      for (const AltPoint& p : c.points) {
        const double gbps = p.bytes / p.op_us / 1e3;
        if (p.op_us >= kFastestOpUs && gbps <= kFastestGbps) continue;
        throw UsageError(fmt::format(
            "{}: {} at {:.0f} B takes {:g} us per op ({:.0f} GB/s): no link does that (an op between ranks takes at least {:g} us, and no link moves {:.0f} GB/s): are its times in ms, not us?",
            alt.path, kind_title(c.kind), p.bytes, p.op_us, gbps, kFastestOpUs, kFastestGbps));
      }
}

void add_point(std::vector<AltCurve>& curves, const AltCurve& key, const AltPoint& point) {
  auto curve = std::find_if(curves.begin(), curves.end(), [&](const AltCurve& c) {
    return c.kind == key.kind && c.name == key.name && c.dtype == key.dtype;
  });
  if (curve == curves.end()) {
    AltCurve made = key;
    made.points.clear();
    curve = curves.insert(curves.end(), made);
  }
  std::vector<AltPoint>& points = curve->points;
  const auto at = std::lower_bound(points.begin(), points.end(), point.bytes,
                                   [](const AltPoint& p, double bytes) { return p.bytes < bytes; });
  if (at != points.end() && at->bytes == point.bytes)
    *at = point;
  else
    points.insert(at, point);
}

}  // namespace k25
