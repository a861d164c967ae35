// `k25comm report FILE`: re-renders report.json, report.md, the CSV files and (unless --no-plots) the plots
// from a report.json or a crashed run's journal, optionally with the serve results of a second report.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "analysis/run_report.hpp"

namespace k25 {

struct RerenderOptions {
  std::string input_path;  // report.json or journal.jsonl
  std::string serve_path;  // optional: a report of the same model whose serve phase ran
  // --backends-from: reports whose AllReduce rows join this one's backends (analysis/backend_merge.hpp)
  std::vector<std::string> backends_from;
  std::string out_dir;  // empty: the input's directory, or with serve_path a new folder (merged_output_dir)
  std::string
      plot_script;    // empty: $K25_PLOT_SCRIPT, else tools/plot-report found from the executable's path
  bool plots = true;  // false (--no-plots): the plot script is not run
  // --capture: folders of a profiled run's trace files read later (docs/live-profile.md), joined to its live
  // profile by join_captures (set by the app stage, which reads traces) before the report is analyzed.
  std::vector<std::string> capture_inputs;
  std::function<void(RunReport& report)> join_captures;
};

// Where a merge writes when --out is not given: the folder "with-serve" (a serve report merged) or
// "with-backends" (backend variants alone) inside the input's directory.
std::string merged_output_dir(const std::string& input_path, bool with_serve = true);

// Reads, analyzes (analyze_report), and writes report.json, report.md, results.csv, serve.csv and the plots
// into the output directory, listing every file written on `out`. A merge (serve_path, backends_from) never
// writes over an input: it writes to out_dir or merged_output_dir, and an out_dir where it would replace an
// input is refused. Returns 0; throws UsageError (exit 2) on unreadable input or an output that would replace
// a merged input, RuntimeFault (exit 3) when the output cannot be written.
int run_report_command(const RerenderOptions& options, std::ostream& out);

}  // namespace k25
