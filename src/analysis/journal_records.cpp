// Journal lines: type-tagged objects made of the report's own JSON parts.
#include "analysis/journal_records.hpp"

#include "analysis/report_notes.hpp"

namespace k25 {

void to_json(nlohmann::json& j, const RunEnd& end) {
  j = {{"finished_at", end.finished_at},
       {"complete", end.complete},
       {"incomplete_reason", end.incomplete_reason},
       {"notes", end.notes},
       {"derived_notes", end.derived_notes}};
}

void from_json(const nlohmann::json& j, RunEnd& end) {
  end.finished_at = j.value("finished_at", "");
  end.complete = j.value("complete", true);
  end.incomplete_reason = j.value("incomplete_reason", "");
  end.notes = j.value("notes", std::vector<std::string>{});
  end.derived_notes = derived_notes_of(j, end.notes);
}

nlohmann::json run_start_record(const RunReport& report) {
  return {{"type", "run_start"},
          {"schema_version", report.schema_version},
          {"tool", report.tool},
          {"run", report.run},
          {"topology", report.topology}};
}

nlohmann::json result_record(const PhaseResult& result) {
  return {{"type", "result"}, {"result", result}};
}

nlohmann::json serve_start_record(ServeReport serve) {
  serve.levels.clear();
  return {{"type", "serve_start"}, {"serve", serve}};
}

nlohmann::json serve_level_record(const ServeLevel& level) {
  return {{"type", "serve_level"}, {"level", level}};
}

nlohmann::json profile_window_record(const ProfileWindow& window) {
  return {{"type", "profile_window"}, {"window", window}};
}

nlohmann::json live_step_record(const LiveStepLevel& level) {
  return {{"type", "live_step"}, {"level", level}};
}

nlohmann::json run_end_record(const RunInfo& run) {
  nlohmann::json record =
      RunEnd{run.finished_at, run.complete, run.incomplete_reason, run.notes, run.derived_notes};
  record["type"] = "run_end";
  return record;
}

}  // namespace k25
