// Reading report.json and journal.jsonl files back into a RunReport.
#include "analysis/report_reader.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "analysis/analyze.hpp"
#include "analysis/journal_records.hpp"
#include "analysis/report_identity.hpp"
#include "common/error.hpp"
#include "common/redaction.hpp"
#include "common/whole_file.hpp"

namespace k25 {
namespace {

void check_schema_version(const nlohmann::json& j, const std::string& where) {
  if (!j.contains("schema_version") || !j["schema_version"].is_number_integer()) {
    throw UsageError(fmt::format("{}: no schema_version: not a k25comm report", where));
  }
  const nlohmann::json& version = j["schema_version"];
  if (!(version >= kOldestReadableSchemaVersion && version <= kReportSchemaVersion)) {
    throw UsageError(
        fmt::format("{}: schema_version {} is not supported (this build reads versions {} to {})", where,
                    version.dump(), kOldestReadableSchemaVersion, kReportSchemaVersion));
  }
}

RunReport parse_report_object(const nlohmann::json& j, const std::string& source_name) {
  check_schema_version(j, source_name);
  try {
    RunReport report = j.get<RunReport>();
    report.schema_version = kReportSchemaVersion;  // read into this version's form (see report_reader.hpp)
    return report;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: not a valid k25comm report: {}", source_name, e.what()));
  } catch (const std::invalid_argument& e) {  // an unknown phase, mode or dtype name
    throw UsageError(fmt::format("{}: not a valid k25comm report: {}", source_name, e.what()));
  }
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

bool is_blank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

// Replaces a result of the same (phase, requested tokens, mode, backend), or files it under its backend.
void put_result(RunReport& report, PhaseResult result) {
  if (result.backend.empty()) result.backend = report.run.transport;
  for (auto* results : {&report.results, &report.backend_results})
    for (PhaseResult& existing : *results) {
      if (existing.phase == result.phase && existing.requested_tokens == result.requested_tokens &&
          existing.mode == result.mode && existing.backend == result.backend) {
        existing = std::move(result);
        return;
      }
    }
  file_result(report, std::move(result));
}

void put_level(std::vector<ServeLevel>& levels, ServeLevel level) {
  for (ServeLevel& existing : levels) {
    if (existing.concurrency == level.concurrency) {
      existing = std::move(level);
      return;
    }
  }
  levels.push_back(std::move(level));
}

RunReport parse_journal(const std::string& text, const std::string& source_name) {
  const std::vector<std::string> lines = split_lines(text);
  std::size_t last_content_line = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!is_blank(lines[i])) last_content_line = i;
  }

  RunReport report;
  bool started = false, ended = false;
  std::string truncated_note;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (is_blank(lines[i])) continue;
    const std::string where = fmt::format("{} line {}", source_name, i + 1);
    // A journal an older k25comm wrote may hold a secret: it is redacted before anything reads it.
    nlohmann::json entry = redact_json(nlohmann::json::parse(lines[i], nullptr, /*allow_exceptions=*/false));
    if (entry.is_discarded() || !entry.is_object()) {
      if (i == last_content_line && started) {
        truncated_note = fmt::format(
            "the journal's last line (line {}, {} bytes) is truncated, as a crash while writing leaves it; "
            "it was skipped",
            i + 1, lines[i].size());
        break;
      }
      throw UsageError(
          fmt::format("{}: not a JSON object: neither a report.json nor a k25comm journal", where));
    }
    const auto type_member = entry.find("type");
    const std::string type =
        type_member != entry.end() && type_member->is_string() ? type_member->get<std::string>() : "";
    try {
      if (!started) {
        if (type != "run_start") {
          throw UsageError(
              fmt::format("{}: a journal starts with a run_start line, found type '{}'", where, type));
        }
        check_schema_version(entry, where);
        report.schema_version = kReportSchemaVersion;  // read into this version's form
        report.tool = entry.value("tool", ToolInfo{});
        report.run = entry.value("run", RunInfo{});
        report.topology = entry.value("topology", TopologyInfo{});
        started = true;
      } else if (type == "result") {
        put_result(report, entry.at("result").get<PhaseResult>());
      } else if (type == "serve_start") {
        std::vector<ServeLevel> levels = std::move(report.serve.levels);
        report.serve = entry.at("serve").get<ServeReport>();
        for (ServeLevel& level : levels) put_level(report.serve.levels, std::move(level));
      } else if (type == "serve_level") {
        put_level(report.serve.levels, entry.at("level").get<ServeLevel>());
        report.serve.ran = true;
      } else if (type == "profile_window") {
        report.serve.profile.windows.push_back(entry.at("window").get<ProfileWindow>());
      } else if (type == "live_step") {
        // A level read again (a file of its window came late) replaces what was journaled for it first.
        report.live_profile.present = true;
        LiveStepLevel level = entry.at("level").get<LiveStepLevel>();
        auto& levels = report.live_profile.levels;
        const auto same = std::find_if(levels.begin(), levels.end(), [&](const LiveStepLevel& l) {
          return l.concurrency == level.concurrency;
        });
        if (same == levels.end())
          levels.push_back(std::move(level));
        else
          *same = std::move(level);
      } else if (type == "run_end") {
        const RunEnd end = entry.get<RunEnd>();
        if (!end.finished_at.empty()) report.run.finished_at = end.finished_at;
        report.run.complete = end.complete;
        report.run.incomplete_reason = end.incomplete_reason;
        for (const std::string& note : end.notes) add_note(report.run, note);
        report.run.derived_notes = end.derived_notes;
        ended = true;
      }
      // Other line types are from newer writers and carry nothing this reader needs.
    } catch (const nlohmann::json::exception& e) {
      throw UsageError(fmt::format("{}: malformed '{}' line: {}", where, type, e.what()));
    } catch (const std::invalid_argument& e) {  // an unknown phase, mode or dtype name
      throw UsageError(fmt::format("{}: malformed '{}' line: {}", where, type, e.what()));
    }
  }
  if (!started) throw UsageError(fmt::format("{}: empty: no report and no journal lines", source_name));
  if (!ended) {
    report.run.complete = false;
    report.run.incomplete_reason = "journal ends without run_end (the run did not finish)";
  }
  if (!truncated_note.empty()) add_note(report.run, truncated_note);
  return report;
}

}  // namespace

RunReport parse_report_text(const std::string& text, const std::string& source_name) {
  if (is_blank(text))
    throw UsageError(fmt::format("{}: empty file: no report and no journal lines", source_name));
  // A report an older k25comm wrote may hold a secret (the command line's --api-key, an endpoint's
  // user-info): it is redacted before anything reads it, so that a re-render, a merge, capture and predict
  // write none.
  const nlohmann::json whole = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!whole.is_discarded() && whole.is_object() && !whole.contains("type"))
    return report_from_json(whole, source_name);
  RunReport report = parse_journal(text, source_name);
  analyze_report(report);  // attribution, fits, headline and derived notes come from the data, never the file
  return report;
}

RunReport report_from_json(const nlohmann::json& json, const std::string& source_name) {
  RunReport report = parse_report_object(redact_json(json), source_name);
  analyze_report(report);  // attribution, fits, headline and derived notes come from the data, never the file
  return report;
}

RunReport read_report_file(const std::string& path) {
  return parse_report_text(read_whole_file(path), path);
}

RunReport merge_serve_report(RunReport comm, const RunReport& serve) {
  const std::string comm_model = report_model_name(comm), serve_model = report_model_name(serve);
  if (!comm_model.empty() && !serve_model.empty() && comm_model != serve_model) {
    throw UsageError(fmt::format("the serve report is of model '{}', the communication report of '{}'",
                                 serve_model, comm_model));
  }
  if (serve.serve.levels.empty()) {
    throw UsageError(serve.serve.skipped_reason.empty()
                         ? std::string("the serve report has no serve levels")
                         : "the serve report has no serve levels: " + serve.serve.skipped_reason);
  }
  if (!comm.serve.levels.empty()) {
    add_note(comm.run, "serve results of this run were replaced by those of a separate serve report");
  }
  comm.serve = serve.serve;
  comm.live_profile = serve.live_profile;  // the serve run's live step, now beside the replay's burst
  // Notes about serving (a skipped phase, failed requests) are derived from the data by analyze_report.
  add_note(comm.run, fmt::format("serve results from a separate run started {} ({})", serve.run.started_at,
                                 report_label(serve)));
  return comm;
}

bool looks_like_report_json(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("results") &&
         (doc.contains("tool") || doc.contains("schema_version"));
}

}  // namespace k25
