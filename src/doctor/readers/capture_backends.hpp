// The one place doctor reads capture.json: its trace.backends (the all-reduce backend that ran per collective
// kind and size) and trace.backend_rules (each a note). To be switched to capture's typed document.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "doctor/model/doctor_document.hpp"

namespace k25 {

// Read defensively: absent or of another shape gives no runs and a status saying so, never an exception.
BackendsSeen backends_from_capture(const nlohmann::json& capture, const std::string& file);

// Whether `json` has capture.json's shape (a trace, or a schema_version without doctor's or a report's
// members).
bool has_capture_members(const nlohmann::json& json);

}  // namespace k25
