// capture --emit-config FILE: the --model config with the captured decode step as its model.sequence, written
// only once it loads back and plans at the captured ranks and token counts.
#pragma once

#include <string>
#include <vector>

#include "analysis/capture_document.hpp"
#include "config/run_config.hpp"

namespace k25 {

// The config text to write and what the capture says about it, or why there is none.
struct ReplayConfigText {
  bool ok = false;
  std::string yaml;     // the whole file, comments first
  std::string summary;  // one line for the console: entries, token counts, the command that replays it
  std::string reason;   // why none (capture.json emit_config.reason)
};

// `model` is the --model config as loaded (model_path names it); `inputs` the Inspector paths given. The
// sequence comes from capture/captured_sequence.hpp; sweep.tokens becomes the captured token counts and the
// All-to-All phase is left out (the captured step holds no dispatch or combine). The text is parsed back and
// every token count planned at the captured ranks before it is offered: a config k25comm would refuse is
// never written.
ReplayConfigText replay_config_text(const CaptureResult& capture, const RunConfig& model,
                                    const std::string& model_path, const std::vector<std::string>& inputs,
                                    const std::string& out_path);

}  // namespace k25
