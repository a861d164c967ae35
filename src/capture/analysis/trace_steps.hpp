// The steps of one rank's GPU timeline, found three ways in order of trust: the engine's own step marks, the
// repeating pattern of its collectives (the Inspector's step detection), GPU idle gaps.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "capture/analysis/intervals.hpp"
#include "capture/analysis/step_detection.hpp"
#include "capture/model/step_marks.hpp"
#include "capture/model/trace_model.hpp"

namespace k25 {

struct TraceStep {
  std::int64_t start_ns = 0, end_ns = 0;  // the step's GPU window
  StepPhase phase = StepPhase::unknown;
  std::optional<int> batch, tokens;
  std::uint32_t mark = 0;               // the mark's name (TraceCapture::names); 0 without a mark
  std::optional<std::int64_t> host_ns;  // the mark's host duration
};

// The marks of one rank's family with the most marks that launched GPU work (ties: vLLM, SGLang,
// ProfilerStep; the host's iterations only where none of those has any, the optimizer's first), each with its
// GPU window, in window order. `family` says which; empty when the rank has none. `without_work` gets the
// names of the family's marks that launched no GPU work (of every family but the iterations', where none was
// taken): counted and said, never a step.
std::vector<TraceStep> steps_from_marks(const std::vector<const StepMark*>& marks, const NameTable& names,
                                        std::optional<MarkFamily>& family,
                                        std::vector<std::uint32_t>& without_work);

// One collective kernel of a rank, in time order.
struct CommKernel {
  std::int64_t start_ns = 0, end_ns = 0;
  std::uint16_t kind = 0;
  std::uint64_t bytes = 0;  // 0: unknown
};

// Steps from the pattern of the rank's collectives (detect_steps on its own sequence). A step's window runs
// from the end of the op before its first (its start, for the first op) to the end of its last op; prefill by
// size as detect_steps decides; tokens from the size where `bytes_per_token` is given. `reason` says why
// none.
std::vector<TraceStep> steps_from_comm_pattern(const std::vector<CommKernel>& comm,
                                               const std::vector<std::string>& kinds, const StepHints& hints,
                                               std::optional<std::uint64_t> bytes_per_token,
                                               std::string& reason);

// Steps as the GPU's busy stretches between idle gaps of at least `gap_ns` (no kernel, copy or set on any
// stream).
std::vector<TraceStep> steps_from_idle_gaps(const MergedIntervals& busy, std::int64_t gap_ns);

}  // namespace k25
