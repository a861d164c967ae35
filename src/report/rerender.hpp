// `k25comm report FILE`: re-renders report.json, report.md and the plots from a report.json or from the
// journal of a crashed run, optionally with the serve results of a second report.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace k25 {

struct RerenderOptions {
  std::string input_path;  // report.json or journal.jsonl
  std::string serve_path;  // optional: a report of the same model whose serve phase ran
  std::string out_dir;     // empty: the input's directory
  std::string
      plot_script;  // empty: $K25_PLOT_SCRIPT, else tools/plot-report found from the executable's path
};

// Reads, analyzes (analyze_report), writes report.json and report.md atomically into the output directory,
// and runs the plot script when python3 with matplotlib is there (and says so when it is not: the report is
// written all the same). Returns 0; throws UsageError (exit 2) on unreadable input, RuntimeFault (exit 3)
// when the output cannot be written.
int run_report_command(const RerenderOptions& options, std::ostream& out);

// The python interpreter for the plot script: /usr/bin/python3 where it exists (Debian's, with matplotlib),
// else python3 from PATH.
std::string plot_python();

// The plot script: `explicit_path` when given, else $K25_PLOT_SCRIPT, else tools/plot-report beside or above
// the running executable, else the source tree it was built from. Empty when none is found.
std::string find_plot_script(const std::string& explicit_path);

// The same search for any script of tools/ called `name`, overridden by the environment variable `env_var`.
std::string find_tool_script(const std::string& explicit_path, const std::string& name, const char* env_var);

struct ProcessResult {
  int exit_code = -1;  // -1: could not start or killed by a signal
  std::string output;  // stdout and stderr together
};

// Runs argv[0] (searched on PATH) with the arguments, no shell; captures its output.
ProcessResult run_process(const std::vector<std::string>& argv);

}  // namespace k25
