// predict's input files, each format told by its content: the base (capture.json or report.json) and the
// alternatives (replay report.json, nccl-tests text or -J JSON, CSV).
#pragma once

#include <string>

#include "predict/predict_inputs.hpp"

namespace k25 {

// Throws UsageError (exit 2), one line naming `path`: unreadable, none of the formats, or what the format's
// reader refuses.
BaseDocument read_base_file(const std::string& path);
AltDocument read_alt_file(const std::string& path, const std::string& label);

// The name an alternative goes by when --label does not give one: the file's stem, or its folder's name for
// the names k25comm and nccl-tests give every file ("report", "results", "capture").
std::string default_label(const std::string& path);

}  // namespace k25
