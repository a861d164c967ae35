// capture.md: per communicator what the Inspector recorded, the decode step, per-size tables, the comparison
// with the replay and the live attribution.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analysis/capture_document.hpp"

namespace k25 {

// The plots tools/plot-capture writes: (file name, title), in the order capture.md shows them.
const std::vector<std::pair<std::string, std::string>>& capture_plot_files();

// "decode steps"; "steps (phase unknown)" where a trace gave every one of them without a phase (training
// ProfilerSteps, steps the timeline cut).
std::string decode_steps_word(const StepSummary& step);

// The whole capture.md text; `plots` (file names next to it) are shown as images.
std::string render_capture_markdown(const CaptureResult& capture, const std::vector<std::string>& plots);

}  // namespace k25
