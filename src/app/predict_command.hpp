// `k25comm predict BASE --with ALT...`: what a step and TPOT would be on another node, link, backend or mode,
// from the base's live step and the alternatives' per-op figures; writes predict.json, predict.md and
// predict.csv. Analysis over documents: no MPI, no collective.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace k25 {

struct PredictCommandOptions {
  std::string base_path;               // capture.json or report.json
  std::vector<std::string> alt_paths;  // --with, in order
  std::vector<std::string> labels;     // --label, matched to --with in order
  std::vector<std::string> kinds;      // --kind, matched to --with in order ("-": none)
  std::vector<std::string> backends;   // --backend, matched to --with in order ("-": none)
  std::string out_dir = "k25comm-predict";
  bool extrapolate = false;  // --extrapolate: label sizes outside the measured range, not refuse
  bool plots = true;         // tools/plot-predict (--no-plots: not run)
  std::string command_line;
};

// Returns 0, or 1 where nothing was predicted (every level of every alternative refused: the files are
// written, each refusal said). Throws UsageError (exit 2) for a bad input (one line naming the file), more
// --label than --with, no --with; RuntimeFault (exit 3) when the output cannot be written.
int run_predict_command(const PredictCommandOptions& options, std::ostream& out);

}  // namespace k25
