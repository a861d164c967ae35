// The capture stage's one door: read capture files under one set of rules and analyse them.
#include "capture/trace_files.hpp"

#include "capture/analysis/capture_analysis.hpp"
#include "capture/analysis/kernel_classes.hpp"
#include "capture/analysis/trace_analysis.hpp"
#include "capture/readers/capture_inputs.hpp"
#include "common/error.hpp"

namespace k25 {

namespace {

// The kernel-class tables to load: the user's first, then the shipped one where it is found (looked up as
// the configs are).
std::vector<std::string> kernel_class_tables(const std::vector<std::string>& user_tables) {
  std::vector<std::string> tables = user_tables;
  const std::string shipped = shipped_kernel_class_table();
  if (!shipped.empty()) tables.push_back(shipped);
  return tables;
}

constexpr const char* kNoKernelClassTable =
    "the kernel-class table data/kernel-classes.yaml was not found (in the working directory, beside k25comm or under its install prefix): give --kernel-classes FILE";

}  // namespace

std::string trace_rules_problem(const CaptureRules& rules) {
  try {
    const KernelClassifier classifier(kernel_class_tables(rules.kernel_class_tables));
    return classifier.rules() == 0 ? kNoKernelClassTable : "";
  } catch (const Error& e) {
    return e.message();
  } catch (const std::exception& e) {
    return e.what();
  }
}

CaptureResult analyze_capture_files(const std::vector<std::string>& paths, const CaptureRules& rules) {
  const KernelClassifier classifier(kernel_class_tables(rules.kernel_class_tables));
  CaptureInputs inputs = read_capture_inputs(paths);
  CaptureSettings settings;
  settings.model = rules.model;
  settings.prefill_factor = rules.prefill_factor;
  settings.prefill_tokens = rules.prefill_tokens;
  InspectorCapture records = std::move(inputs.inspector);
  std::optional<TraceResult> trace;
  if (!inputs.trace.empty()) {
    if (classifier.rules() == 0) throw UsageError(kNoKernelClassTable);
    TraceSettings trace_settings;
    trace_settings.model = rules.model;
    trace_settings.step_gap_us = rules.step_gap_us;
    trace_settings.prefill_factor = rules.prefill_factor;
    trace_settings.prefill_tokens = rules.prefill_tokens;
    TraceAnalysis analysis = analyze_trace(std::move(inputs.trace), classifier, trace_settings);
    if (!analysis.step_method.empty())
      settings.given_step_methods[kTraceCommunicatorId] = analysis.step_method;
    append_records(records, std::move(analysis.records));
    trace = std::move(analysis.result);
  }
  CaptureResult result = analyze_capture(records, settings);
  if (trace) result.trace = std::move(*trace);
  return result;
}

}  // namespace k25
