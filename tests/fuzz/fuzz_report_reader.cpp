// libFuzzer target: the report reader behind `k25comm report` and `compare`, then what those commands do with
// what it read (analysis, report.md, comparison with itself); bad input must end in a k25::Error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "analysis/analyze.hpp"
#include "analysis/compare.hpp"
#include "analysis/report_reader.hpp"
#include "common/error.hpp"
#include "report/markdown_report.hpp"
#include "report/report_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    k25::RunReport report = k25::parse_report_text(text, "fuzz.json");
    k25::analyze_report(report);
    (void)k25::render_markdown(report);
    (void)k25::results_csv(report);
    (void)k25::serve_csv(report);
    const k25::Comparison comparison = k25::compare_reports(report, report, k25::CompareRules{});
    (void)k25::render_comparison(comparison);
    (void)k25::comparison_csv(comparison);
    (void)k25::comparison_json(comparison).dump();
  } catch (const k25::Error&) {
    // The documented answer to unreadable or incomparable input (exit 2). Anything else is a finding.
  }
  return 0;
}
