// The one place doctor reads capture.json: through capture's typed document (analysis/capture_document.hpp),
// its trace.backends (the all-reduce backend that ran per collective kind and size) and trace.backend_rules
// (each a note).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "doctor/model/doctor_document.hpp"

namespace k25 {

// `capture` read by read_capture_document: a capture.json of another shape (a member missing or renamed, a
// newer schema_version) throws UsageError naming `file` and the member. A capture without profiler traces, or
// whose trace named no backend, gives no runs and a status saying so.
BackendsSeen backends_from_capture(const nlohmann::json& capture, const std::string& file);

// Whether `json` is a capture.json (capture's own test: an object with "capture" and "communicators").
bool has_capture_members(const nlohmann::json& json);

}  // namespace k25
