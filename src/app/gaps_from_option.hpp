// --gaps-from FILE: sets the decode mode's gaps from a measured run: a capture.json's step shape (each op's
// compute gap and each rank's arrivals), or a serve report's compute per layer.
#pragma once

#include <string>

#include "config/run_config.hpp"

namespace k25 {

// Reads the file at `path`, each format told by its content: a capture.json sets config.sweep.decode.captured
// (analysis/gaps_from_capture.hpp); a report.json or journal the compute per layer (analysis/
// gaps_from_serve.hpp) for config.model, in config.sweep.decode.layer_gap_us; either way .gaps_from says the
// derivation in words. Throws UsageError (exit 2) for an unreadable file, a capture without a joined step, a
// report without serve figures, or a config whose modes hold no decode.
void apply_gaps_from(const std::string& path, RunConfig& config);

}  // namespace k25
