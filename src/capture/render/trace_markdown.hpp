// capture.md's section on a profiler trace's timeline.
#pragma once

#include <string>

#include "analysis/capture_trace_document.hpp"

namespace k25 {

// Appends "## Trace: where a step's GPU time goes" and its tables to `md`.
void render_trace_markdown(std::string& md, const TraceResult& trace);

}  // namespace k25
