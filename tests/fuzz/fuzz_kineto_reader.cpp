// libFuzzer target: the PyTorch profiler (Kineto) reader behind `k25comm capture`, plain JSON or gzip (its
// events parsed in small pieces), then what the command does with a trace (run checks, kernel classes, steps,
// per-step figures, join cost, the records' communicator analysis, capture.json/capture.md/CSV rendering);
// bad input must end in a k25::Error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "capture/analysis/capture_analysis.hpp"
#include "capture/analysis/trace_analysis.hpp"
#include "capture/readers/kineto_reader.hpp"
#include "capture/readers/trace_runs.hpp"
#include "capture/render/capture_csv.hpp"
#include "capture/render/capture_markdown.hpp"
#include "common/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const k25::KernelClassifier classifier({K25_SOURCE_DIR "/data/kernel-classes.yaml"});
  // Pieces of 512 bytes: the events array is cut at many boundaries, as a large file's is.
  static k25::KinetoReader reader(512);
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    k25::TraceCapture trace = reader.read_text(text, "fuzz-rank-0.pt.trace.json");
    k25::check_trace_runs(trace);
    k25::CaptureModel model{"smoke", 256, 2, 8, "4 layers x 2 AllReduces", {1, 2, 4, 8}};
    k25::TraceSettings settings;
    settings.model = model;
    settings.step_gap_us = 5;
    k25::TraceAnalysis analysis = k25::analyze_trace(std::move(trace), classifier, settings);
    k25::CaptureSettings capture_settings;
    capture_settings.model = model;
    if (!analysis.step_method.empty())
      capture_settings.given_step_methods[k25::kTraceCommunicatorId] = analysis.step_method;
    k25::CaptureResult result = k25::analyze_capture(analysis.records, capture_settings);
    result.trace = std::move(analysis.result);
    (void)nlohmann::json(result).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    (void)k25::render_capture_markdown(result, {});
    (void)k25::render_ops_csv(result);
    (void)k25::render_steps_csv(result.trace);
  } catch (const k25::Error&) {
    // The documented answer to foreign or malformed input (exit 2). Anything else is a finding.
  }
  return 0;
}
