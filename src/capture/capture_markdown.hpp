// capture.md: per communicator what the Inspector recorded, the decode step, per-size tables, the comparison
// with the replay and the live attribution.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "capture/capture_result.hpp"

namespace k25 {

// The plots tools/plot-capture writes: (file name, title), in the order capture.md shows them.
const std::vector<std::pair<std::string, std::string>>& capture_plot_files();

// The whole capture.md text; `plots` (file names next to it) are shown as images.
std::string render_capture_markdown(const CaptureResult& capture, const std::vector<std::string>& plots);

}  // namespace k25
