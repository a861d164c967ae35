// The journal's lines (journal.jsonl), one function per record type: a run writes them with these, and the
// report reader reads them back with the same fields (and the same from_json of each part).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "analysis/run_report.hpp"

namespace k25 {

// The end of a run, as its last journal line says it.
struct RunEnd {
  std::string finished_at;
  bool complete = true;
  std::string incomplete_reason;
  std::vector<std::string> notes;
  std::vector<std::string> derived_notes;  // those of `notes` derived from the data (RunInfo::derived_notes)
};
void to_json(nlohmann::json& j, const RunEnd& end);
void from_json(const nlohmann::json& j, RunEnd& end);

nlohmann::json run_start_record(const RunReport& report);  // schema_version, tool, run, topology
nlohmann::json result_record(const PhaseResult& result);
nlohmann::json serve_start_record(ServeReport serve);  // the serve header; its levels follow one by one
nlohmann::json serve_level_record(const ServeLevel& level);
nlohmann::json profile_window_record(const ProfileWindow& window);  // a profiled window, as it ends
nlohmann::json live_step_record(const LiveStepLevel& level);        // its live step, once its traces are read
nlohmann::json run_end_record(const RunInfo& run);

}  // namespace k25
