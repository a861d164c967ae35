// capture-ops.csv: every joined collective of every communicator in sequence order; capture-steps.csv: every
// step of every rank of a profiler trace (for plots and for users).
#pragma once

#include <string>

#include "analysis/capture_document.hpp"

namespace k25 {

// Header: communicator,position,kind,sn,bytes,exec_us,slowest_rank,ranks_present,step,phase,start_ts. step is
// -1 outside steps; phase is decode, prefill or outside_steps; start_ts is 0 without verbose output.
std::string render_ops_csv(const CaptureResult& capture);

// Header: rank,step,joined_step,phase,batch,tokens,start_us,wall_us,busy_us,idle_us,host_us,comm_ops,
// comm_merged_us,comm_overlapped_us,comm_exposed_us, then one <class>_us column per kernel class (its merged
// time in the step), then mark. Empty cells where a value is unknown.
std::string render_steps_csv(const TraceResult& trace);

}  // namespace k25
