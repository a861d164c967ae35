// Writing a report's files in a fixed order, report.json last.
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
  return csv_of_records(rows, {"phase", "tokens", "mode", "dtype", "ranks"});
}

std::string serve_csv(const RunReport& report) {
  std::vector<nlohmann::json> rows(report.serve.levels.begin(), report.serve.levels.end());
  return csv_of_records(rows, {"concurrency", "requests", "completed", "failed"});
}

std::vector<std::string> report_file_names() {
  std::vector<std::string> names = {"report.json", "report.md", kResultsCsvName, kServeCsvName};
  for (const ReportArtifact& plot : plot_artifacts()) names.push_back(plot.file_name);
  return names;
}

WrittenFiles write_report_files(const RunReport& report, const std::string& dir, bool with_plots,
                                const std::string& plot_script) {
  WrittenFiles written;
  const auto path_of = [&](const std::string& name) { return (fs::path(dir) / name).string(); };
  const auto write_or_remove = [&](const std::string& name, bool has_data, const std::string& text) {
    std::error_code ignored;
    if (!has_data) {
      fs::remove(path_of(name), ignored);
      return;
    }
    write_file_atomically(path_of(name), text);
    written.paths.push_back(path_of(name));
  };
  const std::string json_text = nlohmann::json(report).dump(2) + "\n";
  write_or_remove(kResultsCsvName, !report.results.empty(), results_csv(report));
  write_or_remove(kServeCsvName, !report.serve.levels.empty(), serve_csv(report));
  if (with_plots) {
    const std::string plot_input = path_of(".report-for-plots.json");
    write_file_atomically(plot_input, json_text);
    PlotOutcome plots = make_plots(plot_input, dir, plot_script);
    std::error_code ignored;
    fs::remove(plot_input, ignored);
    written.paths.insert(written.paths.end(), plots.written.begin(), plots.written.end());
    written.plot_message = plots.message;
  }
  write_file_atomically(path_of("report.md"), render_markdown(report, existing_artifacts(dir)));
  written.paths.push_back(path_of("report.md"));
  write_file_atomically(path_of("report.json"), json_text);
  written.paths.push_back(path_of("report.json"));
  return written;
}

}  // namespace k25
