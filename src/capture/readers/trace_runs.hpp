// The files of one run: a run's trace files are refused together where their ranks cannot be of one run.
#pragma once

#include "capture/model/trace_model.hpp"

namespace k25 {

// Refuses (UsageError naming the files) ranks of different runs (their world sizes differ, or their GPU
// times do not overlap) and two files claiming one rank.
void check_trace_runs(const TraceCapture& trace);

}  // namespace k25
