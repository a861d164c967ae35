// Reading trace files and analysing them: the capture stage's public entry point for profiler traces.
#include "capture/trace_files.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "capture/readers/capture_inputs.hpp"
#include "common/error.hpp"

namespace k25 {

std::vector<std::string> kernel_class_tables(const std::vector<std::string>& user_tables) {
  std::vector<std::string> tables = user_tables;
  const std::string shipped = shipped_kernel_class_table();
  if (!shipped.empty()) tables.push_back(shipped);
  return tables;
}

void throw_no_kernel_class_table() {
  throw UsageError(
      "the kernel-class table data/kernel-classes.yaml was not found (in the working directory, beside k25comm or under its install prefix): give --kernel-classes FILE");
}

TraceAnalysis analyze_trace_files(const std::vector<std::string>& paths, const TraceSettings& settings,
                                  const std::vector<std::string>& class_tables) {
  const KernelClassifier classifier(kernel_class_tables(class_tables));
  if (classifier.rules() == 0) throw_no_kernel_class_table();
  CaptureInputs inputs = read_capture_inputs(paths);
  if (inputs.trace.empty())
    throw UsageError(fmt::format("{}: no profiler trace among the inputs", fmt::join(paths, ", ")));
  return analyze_trace(std::move(inputs.trace), classifier, settings);
}

}  // namespace k25
