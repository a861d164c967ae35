// The files of a report in its output directory: report.json and report.md first, then the optional ones
// (trace.json, results.csv, serve.csv, the plots). Shared by a measuring run and `k25comm report`.
#pragma once

#include <string>
#include <vector>

#include "analysis/run_report.hpp"
#include "common/error.hpp"

namespace k25 {

inline constexpr const char* kResultsCsvName = "results.csv";
inline constexpr const char* kServeCsvName = "serve.csv";

// CSV text of the results (one row per point and backend, the transport's own first) and of the serve levels
// (one row per concurrency), columns named as in report.json.
std::string results_csv(const RunReport& report);
std::string serve_csv(const RunReport& report);

// An optional file only a measuring run can make (trace.json): its name in the output directory and text.
struct ExtraFile {
  std::string name, text;
};

struct WrittenFiles {
  std::vector<std::string> paths;  // every file written, in order: report.json and report.md first
  std::string plot_message;        // skipped plots, or why none were made
};

// A file of the report could not be written (a full disk, a read-only directory): the message names it and
// says whether report.json and report.md, written first, are there.
class ReportWriteFault : public RuntimeFault {
 public:
  ReportWriteFault(const std::string& message, bool reports_written)
      : RuntimeFault(message), reports_written_(reports_written) {}
  bool reports_written() const noexcept { return reports_written_; }

 private:
  bool reports_written_;
};

// Writes into `dir`, in this order: report.json and report.md (the report itself, so that a full disk loses
// the optional files first), then the optional files: `extra`, results.csv and serve.csv where there is data
// (a stale one is removed where there is none) and the plots when `with_plots` (tools/plot-report run on
// report.json); then report.md once more, linking what exists. Throws ReportWriteFault when a file cannot be
// written; plots that cannot be made are only reported.
WrittenFiles write_report_files(const RunReport& report, const std::string& dir, bool with_plots,
                                const std::string& plot_script = {},
                                const std::vector<ExtraFile>& extra = {});

// The files a run's output directory may hold from an earlier run (reports, CSV, plots, not the journal).
std::vector<std::string> report_file_names();

}  // namespace k25
