// Re-rendering of a run's report files and plots from report.json or journal.jsonl, and merging a serve
// report.
#include "report/rerender.hpp"

#include <filesystem>
#include <ostream>
#include <system_error>

#include <fmt/format.h>

#include "analysis/analyze.hpp"
#include "analysis/backend_merge.hpp"
#include "analysis/headline.hpp"
#include "analysis/report_reader.hpp"
#include "common/error.hpp"
#include "report/atomic_file.hpp"
#include "report/report_files.hpp"

namespace k25 {

namespace fs = std::filesystem;

namespace {

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
  return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
}

// A merge writes report files into `out_dir`: none of them may be one of its inputs.
void refuse_overwriting_inputs(const RerenderOptions& options, const std::string& out_dir) {
  for (const std::string& name : report_file_names()) {
    const fs::path target = fs::path(out_dir) / name;
    std::vector<std::string> inputs = {options.input_path, options.serve_path};
    inputs.insert(inputs.end(), options.backends_from.begin(), options.backends_from.end());
    for (const std::string& input : inputs) {
      if (!input.empty() && same_file(target, input))
        throw UsageError(fmt::format(
            "report {} would write over its input {}: merged reports go to another folder (--out DIR, default {})",
            options.serve_path.empty() ? "--backends-from" : "--serve", input,
            merged_output_dir(options.input_path, !options.serve_path.empty())));
    }
  }
}

}  // namespace

std::string merged_output_dir(const std::string& input_path, bool with_serve) {
  const fs::path parent = fs::path(input_path).parent_path();
  return ((parent.empty() ? fs::path(".") : parent) / (with_serve ? "with-serve" : "with-backends")).string();
}

int run_report_command(const RerenderOptions& options, std::ostream& out) {
  const bool with_serve = !options.serve_path.empty();
  const bool merging = with_serve || !options.backends_from.empty();
  RunReport report = read_report_file(options.input_path);
  if (with_serve) report = merge_serve_report(std::move(report), read_report_file(options.serve_path));
  for (const std::string& path : options.backends_from)
    merge_backend_variants(report, read_report_file(path), path);
  if (!options.capture_inputs.empty() && options.join_captures) options.join_captures(report);
  analyze_report(report);

  std::string out_dir = options.out_dir;
  if (out_dir.empty() && merging) out_dir = merged_output_dir(options.input_path, with_serve);
  if (out_dir.empty()) {
    out_dir = fs::path(options.input_path).parent_path().string();
    if (out_dir.empty()) out_dir = ".";
  }
  if (merging) refuse_overwriting_inputs(options, out_dir);
  ensure_writable_directory(out_dir);
  const WrittenFiles files = write_report_files(report, out_dir, options.plots, options.plot_script);

  out << files.plot_message;
  for (const std::string& path : files.paths) out << "wrote " << path << "\n";
  if (with_serve)
    out << fmt::format("merged {} and the serve results of {} into {} (the inputs are unchanged)\n",
                       options.input_path, options.serve_path, out_dir);
  for (const std::string& path : options.backends_from)
    out << fmt::format("merged the AllReduce rows of {} as backends into {} (the inputs are unchanged)\n",
                       path, out_dir);
  if (!report.run.complete) out << "incomplete run: " << report.run.incomplete_reason << "\n";
  for (const std::string& line : per_token_count_lines(report)) out << "per token count: " << line << "\n";
  for (const std::string& sentence : report.headline) out << "headline: " << sentence << "\n";
  return 0;
}

}  // namespace k25
