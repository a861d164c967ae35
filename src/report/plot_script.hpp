// Running tools/plot-report (python3 + matplotlib) on a report: which interpreter and script, and what it
// wrote.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace k25 {

// The python interpreter for the plot script, chosen as tools/plot-report chooses it when it must re-run
// itself: $K25_PYTHON when set, else /usr/bin/python3 where it exists (Debian's, with python3-matplotlib),
// else python3 from PATH.
std::string plot_python();

// Exit code of the plot scripts (tools/plot-report, tools/plot-capture) when matplotlib cannot be imported.
inline constexpr int kPlotScriptNoMatplotlib = 3;

// The plot script: `explicit_path` when given, else $K25_PLOT_SCRIPT, else tools/plot-report under the
// running executable's shared-file roots (an install's share/k25comm, a build directory's source tree:
// common/shared_files.hpp). Empty when none is found.
std::string find_plot_script(const std::string& explicit_path);

// The same search for any script of tools/ called `name`, overridden by the environment variable `env_var`.
std::string find_tool_script(const std::string& explicit_path, const std::string& name, const char* env_var);

struct ProcessResult {
  int exit_code = -1;  // -1: could not start or killed by a signal
  std::string output;  // stdout and stderr together
};

// Runs argv[0] (searched on PATH) with the arguments, no shell; captures its output.
[[nodiscard]] ProcessResult run_process(const std::vector<std::string>& argv);

struct PlotOutcome {
  std::vector<std::string> written;  // PNG paths the script wrote
  std::string message;               // what to tell the user (skipped plots, or why none were made)
};

// Runs the plot script on `report_json` into `out_dir`. Never throws for a missing python, matplotlib or
// script: the outcome says so.
PlotOutcome make_plots(const std::string& report_json, const std::string& out_dir,
                       const std::string& script_option);

// Runs tools/NAME (found as find_tool_script finds it, $ENV_VAR overriding) as `NAME JSON --out DIR` and
// writes on `out` what it wrote, or why no plot was made: a missing script or matplotlib never fails the
// command that asked (tools/plot-predict, tools/plot-doctor).
void run_tool_plot(const std::string& name, const char* env_var, const std::string& json_path,
                   const std::string& out_dir, std::ostream& out);

}  // namespace k25
