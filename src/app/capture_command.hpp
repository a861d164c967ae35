// `k25comm capture PATH...`: what a live program did, read from NVIDIA's NCCL Inspector output, PyTorch
// profiler (Kineto) traces or Nsight Systems SQLite exports, analysed and put next to a replay and a serve
// run; writes capture.json, capture.md, capture-ops.csv (and capture-steps.csv from a trace) and plots.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "capture/model/capture_rules.hpp"

namespace k25 {

struct CaptureOptions {
  std::vector<std::string> inputs;  // files and folders: Inspector logs, Kineto traces, nsys SQLite exports
  std::vector<std::string> kernel_classes;  // --kernel-classes FILE: tried before the shipped table
  double step_gap_us =
      CaptureRules::kDefaultStepGapUs;  // --step-gap-us: the idle-gap step method's threshold
  std::string model_config;       // --model CONFIG: a k25comm config whose model turns sizes into tokens
  std::string replay_path;        // --replay REPORT.json: a k25comm report to compare with
  std::string serve_path;         // --serve SERVE.json: a k25comm report whose serve phase ran (TPOT)
  std::optional<double> tpot_ms;  // --tpot MS: a TPOT measured elsewhere
  std::string out_dir = "k25comm-capture";
  std::string emit_config;                                      // --emit-config FILE
  double prefill_factor = CaptureRules::kDefaultPrefillFactor;  // --prefill-factor
  std::optional<int> prefill_tokens;
  bool plots = true;
  std::string plot_script;  // empty: $K25_PLOT_CAPTURE_SCRIPT, else tools/plot-capture
  std::string command_line;
};

// Returns 0. Throws UsageError (exit 2) for unreadable or foreign input (one line naming the file: not a
// trace, a trace without GPU events, a SQLite that is not an nsys export, a corrupt file, files of different
// runs, two files claiming one rank, a bad kernel-class table), an unknown Inspector format version,
// a bad --model/--replay/--serve file, --emit-config without --model, and, after writing every other output,
// for an --emit-config the capture cannot give (no decode step, kinds model.sequence cannot hold, sizes that
// neither scale with tokens nor stay fixed); RuntimeFault (exit 3) when the output cannot be written.
int run_capture_command(const CaptureOptions& options, std::ostream& out);

}  // namespace k25
