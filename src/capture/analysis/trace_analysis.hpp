// Analysis of profiler-trace timelines, whatever format they came from: kernel classes, steps (the engine's
// marks, else the collectives' pattern, else GPU idle gaps), per-step and per-rank figures, sizes with their
// provenance, the live join cost across ranks, and the trace's collectives as records for the communicator
// analysis (replay comparison, --emit-config).
#pragma once

#include <optional>

#include "analysis/capture_document.hpp"
#include "capture/analysis/kernel_classes.hpp"
#include "capture/model/capture_rules.hpp"
#include "capture/model/inspector_record.hpp"
#include "capture/model/trace_model.hpp"

namespace k25 {

struct TraceSettings {
  std::optional<CaptureModel> model;
  double step_gap_us = CaptureRules::kDefaultStepGapUs;
  double prefill_factor = CaptureRules::kDefaultPrefillFactor;
  std::optional<int> prefill_tokens;  // instead of the factor: steps above this many tokens (needs a model)
};

// The communicator the trace's collectives form in the records (one per run).
inline constexpr const char* kTraceCommunicatorId = "trace";

struct TraceAnalysis {
  TraceResult result;
  InspectorCapture
      records;  // the trace's collective kernels as op records of communicator kTraceCommunicatorId
  std::string step_method;  // the method the records' steps came from ("" when none)
};

TraceAnalysis analyze_trace(TraceCapture trace, const KernelClassifier& classifier,
                            const TraceSettings& settings);

}  // namespace k25
