// A trace file matched to the profiler window that holds its events.
#include "live_profile/window_matching.hpp"

#include <algorithm>

namespace k25 {
namespace {

// Times before this (2000-01-01) are no wall clock: the trace's times are its own.
constexpr double kEarliestWallClockUnixS = 946684800;

// The measure of [a, b] ∩ [c, d] (0 where they do not meet).
double overlap_s(double a, double b, double c, double d) {
  return std::max(0.0, std::min(b, d) - std::max(a, c));
}

// How far [a, b] lies outside [c, d] (0 where they meet).
double gap_s(double a, double b, double c, double d) {
  return std::max({0.0, c - b, a - d});
}

}  // namespace

std::optional<std::size_t> owning_window(const std::vector<WindowSpan>& windows,
                                         std::optional<double> first_unix_s,
                                         std::optional<double> last_unix_s, double clock_slack_s) {
  if (windows.empty()) return std::nullopt;
  if (!first_unix_s || !last_unix_s || *first_unix_s < kEarliestWallClockUnixS) return windows.size() - 1;
  const double a = *first_unix_s, b = *last_unix_s;
  std::optional<std::size_t> best;
  double best_overlap = -1, best_distance = 0;
  for (std::size_t i = 0; i < windows.size(); ++i) {
    const WindowSpan& w = windows[i];
    if (a < w.start_unix_s - clock_slack_s || b > w.stop_unix_s + clock_slack_s) continue;
    const double o = overlap_s(a, b, w.start_unix_s, w.stop_unix_s);
    const double d = gap_s(a, b, w.start_unix_s, w.stop_unix_s);
    if (o > best_overlap || (o == best_overlap && d < best_distance)) {
      best = i;
      best_overlap = o;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace k25
