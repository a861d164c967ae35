// The capture stage's public entry point for profiler traces: read these trace files (Kineto JSON, plain or
// gzip; Nsight Systems SQLite exports; folders of them) and analyse them into the trace result
// (capture.json's "trace"): steps, per-rank and per-step figures, the join across ranks, and the collectives
// as records.
#pragma once

#include <string>
#include <vector>

#include "capture/analysis/trace_analysis.hpp"

namespace k25 {

// Reads `paths` (files and folders, as `k25comm capture` takes them) and analyses their traces with the
// kernel-class tables `class_tables` tried first, then the shipped data/kernel-classes.yaml. Throws
// UsageError (one line naming the file) for what the readers refuse, for inputs without a profiler trace
// (Inspector logs alone) and where no kernel-class table is found.
TraceAnalysis analyze_trace_files(const std::vector<std::string>& paths, const TraceSettings& settings,
                                  const std::vector<std::string>& class_tables = {});

// The kernel-class tables to load: `user_tables` first, then the shipped one where it is found.
std::vector<std::string> kernel_class_tables(const std::vector<std::string>& user_tables);

// The one-line refusal where no kernel-class table was found (the shipped one is looked up as the configs
// are).
[[noreturn]] void throw_no_kernel_class_table();

}  // namespace k25
