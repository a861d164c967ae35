// What changes the meaning of a capture base's figures, said in every headline's tag: one rank (nothing
// crosses a link), a prefill step (set against decode TPOT where the capture has serve figures), a size taken
// from --model's config rather than the trace. Read from the typed capture document (analysis/
// capture_document.hpp) that capture_base_reader reads the figures from.
#pragma once

#include <string>

#include "analysis/capture_trace_document.hpp"
#include "predict/predict_inputs.hpp"

namespace k25 {

// Adds to `base` (its levels of `phase`, read by base_from_capture from `trace`) its caveats, and marks each
// kind whose size came from the config (a step group's kinds[].bytes_source "model").
void add_capture_caveats(const TraceResult& trace, const std::string& phase, BaseDocument& base);

}  // namespace k25
