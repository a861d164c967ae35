// A capture.json (what `k25comm capture` wrote from a live trace) as predict's base, read as a document:
// predict and capture are peers, only the file passes between them (docs/capture.md lists its fields).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "predict/predict_inputs.hpp"

namespace k25 {

// Whether `doc` is a capture.json: an object with "capture" and "communicators".
bool looks_like_capture_json(const nlohmann::json& doc);

// One level per decode batch of trace.groups (all ranks): the step is the group's wall time p50 (p90), or
// TPOT where the capture's attribution gives one at that batch; per kind its merged time per step, the part
// that overlapped compute in the group's proportion, and the wait for the last rank from trace.join (start
// spread p50, at most the op's time). Throws UsageError naming `path` when the capture has no trace decode
// step.
BaseDocument base_from_capture(const nlohmann::json& doc, const std::string& path);

}  // namespace k25
