// A capture base's caveats: one rank, a prefill step, sizes from the config.
#include "predict/capture_base_caveats.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "predict/kind_names.hpp"

namespace k25 {
namespace {

// The normalized kinds whose size a group of `phase` over all ranks took from the config, over all its
// batches.
std::vector<std::string> kinds_sized_by_config(const TraceResult& trace, const std::string& phase) {
  std::vector<std::string> kinds;
  for (const TraceStepGroup& group : trace.groups) {
    if (group.rank || group.phase != phase) continue;
    for (const TraceKindShare& kind : group.kinds)
      if (kind.bytes_source == "model") kinds.push_back(normalized_kind(kind.kind));
  }
  return kinds;
}

}  // namespace

void add_capture_caveats(const TraceResult& trace, const std::string& phase, BaseDocument& base) {
  if (base.ranks == 1) base.caveats.push_back("one rank: nothing crosses a link");
  const std::vector<std::string> by_config = kinds_sized_by_config(trace, phase);
  for (BaseLevel& level : base.levels) {
    if (phase == "prefill")
      level.caveats.push_back(level.step_is_tpot
                                  ? "a prefill step set against decode TPOT (the trace holds no decode step)"
                                  : "a prefill step (the trace holds no decode step)");
    for (BaseKind& kind : level.kinds)
      if (std::find(by_config.begin(), by_config.end(), kind.kind) != by_config.end()) {
        kind.size_from_config = true;
        level.caveats.push_back(fmt::format("{}'s size from the --model config, not the trace", kind.name));
      }
  }
}

}  // namespace k25
