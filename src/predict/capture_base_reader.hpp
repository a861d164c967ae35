// A capture.json (what `k25comm capture` wrote from a live trace) as predict's base, read as a document:
// predict and capture are peers, only the file passes between them (docs/capture.md lists its fields).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "predict/predict_inputs.hpp"

namespace k25 {

// One level per step group of trace.groups over all ranks: its decode steps, else its steps of unknown phase
// (a trace without phase marks), else its prefill steps (said). The step is the group's wall time p50 (p90),
// or TPOT where the capture's attribution gives one at that batch; per kind its merged time per step, the
// part that overlapped compute in the group's proportion, the size as nccl-tests counts it (an AllGather's or
// ReduceScatter's rank part times the group size), and where the ranks were joined on one clock each op split
// into the wait for the last rank and the transfer after it (trace.join's transfer_us p50; the wait the
// rest of the op). The rank count is the group size (the traces' world size), not the files read. Its
// caveats (one rank, a prefill step, a size from the config: capture_base_caveats.hpp) are in it. Throws
// UsageError naming `path` when the capture has no trace step.
BaseDocument base_from_capture(const nlohmann::json& doc, const std::string& path);

}  // namespace k25
