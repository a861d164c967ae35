// Writing a report's files in a fixed order: report.json and report.md first, the optional files after.
#include "report/report_files.hpp"

#include <filesystem>
#include <system_error>

#include "common/csv_table.hpp"
#include "report/atomic_file.hpp"
#include "report/markdown_report.hpp"
#include "report/plot_script.hpp"

namespace k25 {

namespace fs = std::filesystem;

std::string results_csv(const RunReport& report) {
  std::vector<nlohmann::json> rows(report.results.begin(), report.results.end());
  rows.insert(rows.end(), report.backend_results.begin(), report.backend_results.end());
  return csv_of_records(rows, {"phase", "backend", "tokens", "mode", "dtype", "ranks"});
}

std::string serve_csv(const RunReport& report) {
  std::vector<nlohmann::json> rows(report.serve.levels.begin(), report.serve.levels.end());
  return csv_of_records(rows, {"concurrency", "requests", "completed", "failed"});
}

std::vector<std::string> report_file_names() {
  std::vector<std::string> names = {"report.json", "report.md", kTraceFileName, kResultsCsvName,
                                    kServeCsvName};
  for (const ReportArtifact& plot : plot_artifacts()) names.push_back(plot.file_name);
  return names;
}

WrittenFiles write_report_files(const RunReport& report, const std::string& dir, bool with_plots,
                                const std::string& plot_script, const std::vector<ExtraFile>& extra) {
  WrittenFiles written;
  bool reports_written = false;
  const auto path_of = [&](const std::string& name) { return (fs::path(dir) / name).string(); };
  const auto write = [&](const std::string& name, const std::string& text) {
    try {
      write_file_atomically(path_of(name), text);
    } catch (const Error& e) {
      throw ReportWriteFault(e.message(), reports_written);
    }
    written.paths.push_back(path_of(name));
  };
  const auto write_or_remove = [&](const std::string& name, bool has_data, const std::string& text) {
    std::error_code ignored;
    if (has_data)
      write(name, text);
    else
      fs::remove(path_of(name), ignored);
  };
  write("report.json", nlohmann::json(report).dump(2) + "\n");
  write("report.md", render_markdown(report));
  reports_written = true;
  for (const ExtraFile& file : extra) write(file.name, file.text);
  write_or_remove(kResultsCsvName, !report.results.empty() || !report.backend_results.empty(),
                  results_csv(report));
  write_or_remove(kServeCsvName, !report.serve.levels.empty(), serve_csv(report));
  if (with_plots) {
    PlotOutcome plots = make_plots(path_of("report.json"), dir, plot_script);
    written.paths.insert(written.paths.end(), plots.written.begin(), plots.written.end());
    written.plot_message = plots.message;
  }
  // report.md once more, now that the files it links exist.
  if (const std::vector<ReportArtifact> artifacts = existing_artifacts(dir); !artifacts.empty()) {
    try {
      write_file_atomically(path_of("report.md"), render_markdown(report, artifacts));
    } catch (const Error& e) {
      throw ReportWriteFault(e.message(), reports_written);
    }
  }
  return written;
}

}  // namespace k25
