// The answer a profiler trace gives, in one line per step kind: "decode step at batch 1: 12.40 ms;
// communication 6.39 ms = 51.5 % (exposed 4.10 ms = 33.1 %): AllReduce 123 x 52.0 us, AllGather 1 x 30.0 us;
// GEMM 33.0 %, ...".
#pragma once

#include <string>
#include <vector>

#include "analysis/capture_trace_document.hpp"

namespace k25 {

// The over-all-ranks groups in order of interest (decode with the most steps first, then prefill, mixed,
// unknown), at most `max_lines`.
std::vector<const TraceStepGroup*> headline_groups(const TraceResult& trace, std::size_t max_lines);

// "decode step at batch 1", "prefill of 888 tokens (batch 1)", "step" (marks that give no phase, torch's
// ProfilerStep), "step (phase unknown)" (steps the timeline cut). `step_method`: TraceResult::step_method.
std::string step_title(const TraceStepGroup& group, const std::string& step_method);

std::vector<std::string> trace_headline(const TraceResult& trace, std::size_t max_lines);

}  // namespace k25
