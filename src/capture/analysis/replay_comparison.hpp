// The capture side by side with k25comm's own figures: a replay report's per-op and per-step times at the
// same sizes (--replay), and the captured communication of a decode step as a share of TPOT (--serve,
// --tpot).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/capture_document.hpp"
#include "analysis/run_report.hpp"
#include "serve/serve_result.hpp"

namespace k25 {

// Each captured AllReduce (kind, bytes, phase, and a trace's launch mode) next to the replay's op_us p50 at
// the same bytes per op, per timing mode (only the trace's mode where it is known); each captured decode step
// size with a token count next to the replay's step at those tokens; a trace's decode steps' communication
// share next to the replay's attribution at T = batch. Kinds the replay does not measure are named in the
// notes.
ReplayComparison compare_with_replay(const CaptureResult& capture, const RunReport& replay,
                                     const std::string& path);

// One row per serve level with completed requests (TPOT p50; decode steps of T = concurrency tokens, which
// needs a model to turn sizes into tokens), and one for `tpot_ms` (all decode steps). The captured
// communicator is the one with the most decode steps; `replay`, when given, adds its AllReduce step at the
// same tokens per timing mode; a trace adds its decode step's wall time and communication at batch =
// concurrency.
std::vector<LiveAttributionRow> live_attribution(const CaptureResult& capture,
                                                 const std::vector<ServeLevel>& levels,
                                                 std::optional<double> tpot_ms, const RunReport* replay);

}  // namespace k25
