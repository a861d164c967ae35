// report.md: the run's system facts, caveats, per-phase tables, serving, attribution, fits, plots and
// timeline.
#pragma once

#include <string>
#include <vector>

#include "analysis/run_report.hpp"

namespace k25 {

// A file next to report.md that the report links to.
struct ReportArtifact {
  std::string file_name;  // relative to report.md
  std::string title;
  bool image = true;  // PNG shown inline; false: a plain link (the trace)
};

// The plots tools/plot-report writes (fixed names), in the order report.md shows them.
const std::vector<ReportArtifact>& plot_artifacts();
// The Chrome trace-event timeline's file name in the output directory: "trace.json".
inline constexpr const char* kTraceFileName = "trace.json";

// The plots and the trace that exist in `dir` (stat only; nothing is read).
std::vector<ReportArtifact> existing_artifacts(const std::string& dir);

// The whole report.md text. Attribution and fits are read from report.attribution and report.fits (run
// analyze_report first). `artifacts` are linked as they are given.
std::string render_markdown(const RunReport& report, const std::vector<ReportArtifact>& artifacts = {});

}  // namespace k25
