// Whose profiler window a trace file is: the window whose start..stop holds the file's own GPU events, never
// the one in whose wait it landed (docs/live-profile.md, "Whose files are whose", rule 2).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace k25 {

// A profiler window: its level, and when it was started and stopped (this host's wall clock).
struct WindowSpan {
  int concurrency = 0;
  double start_unix_s = 0, stop_unix_s = 0;
};

// The index in `windows` (in the order they ran) of the window whose start..stop, widened by `clock_slack_s`
// on each side (the server's clock against this host's), holds a file's GPU events from `first_unix_s` to
// `last_unix_s`: where two hold them, the one they overlap most, then the nearest. nullopt where none holds
// them (nobody's: a clock off by more than the slack, an old trace copied in). Without wall-clock times (none
// given, or before 2000: the trace's own clock), the last window: the one in whose wait the file appeared.
std::optional<std::size_t> owning_window(const std::vector<WindowSpan>& windows,
                                         std::optional<double> first_unix_s,
                                         std::optional<double> last_unix_s, double clock_slack_s);

}  // namespace k25
