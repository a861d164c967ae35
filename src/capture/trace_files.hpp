// The capture stage's one door: read these files (NCCL Inspector logs, Kineto JSON plain or gzip, Nsight
// Systems SQLite exports, folders of them) under one set of rules and analyse them into a capture result:
// the Inspector's communicators, and where profiler traces are among them the trace result (capture.json's
// "trace": steps, per-rank and per-step figures, the join across ranks). `k25comm capture`, the live profile
// and `k25comm report --capture` all read through it, so a step is computed one way whichever reads it.
#pragma once

#include <string>
#include <vector>

#include "analysis/capture_document.hpp"
#include "capture/model/capture_rules.hpp"

namespace k25 {

// Reads and analyses `paths` under `rules`. Fills inputs, notes, kinds, communicators, timelines, the trace
// and the rules' model and prefill settings of the result; tool, times, command line, replay, attribution and
// emit_config are the caller's. Throws UsageError (one line naming the file) for what the readers refuse
// (not a trace, a trace without GPU events, a corrupt file, files of different runs, two files claiming one
// rank, a bad kernel-class table), and where the inputs hold a profiler trace but no kernel-class table is
// found.
CaptureResult analyze_capture_files(const std::vector<std::string>& paths, const CaptureRules& rules);

// What analyze_capture_files would refuse every profiler trace for under `rules`, whatever the files: a
// kernel-class table that cannot be read, or none found. Empty when traces can be read. Never throws.
std::string trace_rules_problem(const CaptureRules& rules);

}  // namespace k25
