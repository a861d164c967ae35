// Graph padding of token counts and the sweep schedule built from it (see graph_padding.hpp).
#include "plan/graph_padding.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace k25 {

GraphPadding pad_to_graph_size(int requested, const std::vector<int>& graph_sizes) {
  const auto next = std::lower_bound(graph_sizes.begin(), graph_sizes.end(), requested);
  if (next == graph_sizes.end()) return {requested, requested, true};
  return {requested, *next, false};
}

bool mode_pads(TimingMode mode) {
  return mode == TimingMode::graph;
}

std::vector<MeasuredCount> measured_counts(const std::vector<int>& tokens,
                                           const std::vector<TimingMode>& modes,
                                           const std::vector<int>& graph_sizes) {
  std::vector<MeasuredCount> schedule;
  for (const int requested : tokens) {
    for (const TimingMode mode : modes) {
      const GraphPadding padding = mode_pads(mode) ? pad_to_graph_size(requested, graph_sizes)
                                                   : GraphPadding{requested, requested, false};
      auto count = std::find_if(schedule.begin(), schedule.end(),
                                [&](const MeasuredCount& c) { return c.tokens == padding.padded; });
      if (count == schedule.end()) {
        schedule.push_back({padding.padded, {}});
        count = schedule.end() - 1;
      }
      auto entry = std::find_if(count->modes.begin(), count->modes.end(),
                                [&](const ModeRequests& m) { return m.mode == mode; });
      if (entry == count->modes.end()) {
        count->modes.push_back({mode, {}});
        entry = count->modes.end() - 1;
      }
      const bool already = std::any_of(entry->requests.begin(), entry->requests.end(),
                                       [&](const GraphPadding& p) { return p.requested == requested; });
      if (!already) entry->requests.push_back(padding);
    }
  }
  // Within a count, modes in the sweep's order (a later token count may add an earlier mode).
  for (MeasuredCount& count : schedule)
    std::stable_sort(count.modes.begin(), count.modes.end(),
                     [&](const ModeRequests& a, const ModeRequests& b) {
                       return std::find(modes.begin(), modes.end(), a.mode) <
                              std::find(modes.begin(), modes.end(), b.mode);
                     });
  return schedule;
}

std::string describe_graph_padding(const std::vector<MeasuredCount>& schedule,
                                   const std::vector<int>& graph_sizes) {
  std::vector<GraphPadding> padded, above;
  for (const MeasuredCount& count : schedule)
    for (const ModeRequests& mode : count.modes)
      for (const GraphPadding& request : mode.requests) {
        if (request.above_largest)
          above.push_back(request);
        else if (request.padded != request.requested)
          padded.push_back(request);
      }
  const auto by_request = [](const GraphPadding& a, const GraphPadding& b) {
    return a.requested < b.requested;
  };
  std::sort(padded.begin(), padded.end(), by_request);
  std::sort(above.begin(), above.end(), by_request);
  std::string text;
  for (const GraphPadding& p : padded)
    text += fmt::format("{}{} -> {}", text.empty() ? "" : ", ", p.requested, p.padded);
  if (!above.empty()) {
    std::string counts;
    for (const GraphPadding& p : above)
      counts += fmt::format("{}{}", counts.empty() ? "" : ", ", p.requested);
    text += fmt::format("{}{} above the largest capture size {}: not padded (vLLM runs {} eagerly)",
                        text.empty() ? "" : "; ", counts, graph_sizes.empty() ? 0 : graph_sizes.back(),
                        above.size() == 1 ? "such a batch" : "such batches");
  }
  return text;
}

}  // namespace k25
