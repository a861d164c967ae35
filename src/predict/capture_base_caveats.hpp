// What changes the meaning of a capture base's figures, said in every headline's tag: one rank (nothing
// crosses a link), a prefill step (set against decode TPOT where the capture has serve figures), a size taken
// from --model's config rather than the trace. Read from capture.json beside capture_base_reader (which reads
// the figures); to move into it once the capture document carries them (issue 51).
#pragma once

#include <nlohmann/json.hpp>

#include "predict/predict_inputs.hpp"

namespace k25 {

// Adds to `base` (read by base_from_capture from `doc`) its caveats, and marks each kind whose size came from
// the config (trace.groups[].kinds[].bytes_source "model").
void add_capture_caveats(const nlohmann::json& doc, BaseDocument& base);

}  // namespace k25
