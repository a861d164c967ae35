// capture-ops.csv: every joined collective of every communicator in sequence order (for plots and for users).
#pragma once

#include <string>

#include "capture/capture_result.hpp"

namespace k25 {

// Header: communicator,position,kind,sn,bytes,exec_us,slowest_rank,ranks_present,step,phase,start_ts. step is
// -1 outside steps; phase is decode, prefill or outside_steps; start_ts is 0 without verbose output.
std::string render_ops_csv(const CaptureResult& capture);

}  // namespace k25
