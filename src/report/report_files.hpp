// The files of a report in its output directory: results.csv, serve.csv, the plots, report.md and, last,
// report.json. Shared by a measuring run and `k25comm report`.
#pragma once

#include <string>
#include <vector>

#include "analysis/run_report.hpp"

namespace k25 {

inline constexpr const char* kResultsCsvName = "results.csv";
inline constexpr const char* kServeCsvName = "serve.csv";

// CSV text of the results (one row per point) and of the serve levels (one row per concurrency), columns
// named as in report.json.
std::string results_csv(const RunReport& report);
std::string serve_csv(const RunReport& report);

struct WrittenFiles {
  std::vector<std::string> paths;  // every file written, in order; report.json last
  std::string plot_message;        // skipped plots, or why none were made
};

// Writes into `dir` (analyze_report first): results.csv and serve.csv where there is data (a stale one is
// removed where there is none), the plots when `with_plots` (tools/plot-report run on a temporary copy of
// report.json, so that report.json is still the last file written), report.md linking what exists, then
// report.json. Throws RuntimeFault when a file cannot be written; plots that cannot be made are only
// reported.
WrittenFiles write_report_files(const RunReport& report, const std::string& dir, bool with_plots,
                                const std::string& plot_script = {});

// The files a run's output directory may hold from an earlier run (reports, CSV, plots, not the journal).
std::vector<std::string> report_file_names();

}  // namespace k25
