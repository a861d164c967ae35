// --gaps-from SERVE_REPORT.json: sets the decode mode's compute per layer from a measured report.
#pragma once

#include <string>

#include "config/run_config.hpp"

namespace k25 {

// Reads the report at `path` (report.json or journal), derives the compute per layer (analysis/
// gaps_from_serve.hpp) for config.model, and sets config.sweep.decode.layer_gap_us and .gaps_from (the
// derivation in words). Throws UsageError (exit 2) for an unreadable report, one without serve figures, or a
// config whose modes hold no decode.
void apply_gaps_from(const std::string& path, RunConfig& config);

}  // namespace k25
