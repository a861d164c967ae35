// Analysis of what the Inspector recorded: ranks joined per communicator, whether records are complete or
// sampled, the decode step, per-size statistics and P2P totals.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "analysis/capture_document.hpp"
#include "capture/model/capture_rules.hpp"
#include "capture/model/inspector_record.hpp"
#include "config/run_config.hpp"

namespace k25 {

struct CaptureSettings {
  std::optional<CaptureModel> model;
  double prefill_factor = CaptureRules::kDefaultPrefillFactor;  // prefill: steps above a jump of this x
                                                                // between step sizes (StepHints)
  std::optional<int> prefill_tokens;  // instead: steps above this many tokens (needs a model)
  // Communicators built from a profiler trace, whose records carry the trace's steps: id -> the method that
  // found them (StepHints::given_method).
  std::map<std::string, std::string> given_step_methods;
};

// The capture's view of a model config.
CaptureModel capture_model(const ModelSpec& model);

// Fills inputs, notes, kinds, communicators and timelines of a CaptureResult (tool, times, replay,
// attribution and emit_config are the caller's).
CaptureResult analyze_capture(const InspectorCapture& capture, const CaptureSettings& settings);

}  // namespace k25
