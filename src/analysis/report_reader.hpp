// Reads a run back from disk: a report.json, or the journal.jsonl a run (perhaps a crashed one) left behind.
#pragma once

#include <string>

#include "analysis/run_report.hpp"

namespace k25 {

// Detects the format by content: one JSON object without a "type" member is a report, anything else is read
// as a journal. A journal's unparsable last line (a crash mid-write) is skipped and noted in run.notes; a
// journal without run_end gives run.complete = false. Throws UsageError (exit 2) naming the path (and line)
// and the reason when the file cannot be read, is neither format, or has a schema_version this build does not
// read. Versions 1 to 4 are read, into version 4's form (schema_version 4): a version-1 serve level without
// completions has null STATS instead of zeros; a report before 3 has no live profile; a result before 4 has
// no backend and is the transport's own; attribution, fits,
// headline and derived notes are recomputed by analyze_report. Every secret an older writer left in it (an
// --api-key value, an endpoint's user-info, a secret-named variable) is redacted (common/redaction.hpp).
RunReport read_report_file(const std::string& path);

// Same, from text already read; `source_name` names it in messages.
RunReport parse_report_text(const std::string& text, const std::string& source_name);

// Same, from a report.json object already parsed (not a journal).
RunReport report_from_json(const nlohmann::json& json, const std::string& source_name);

// Whether `doc` (parsed JSON) is a report.json: an object with "results" and "tool" or "schema_version". For
// readers that tell formats apart by content (predict's inputs), before parse_report_text reads it.
bool looks_like_report_json(const nlohmann::json& doc);

// `comm` with the serve results of `serve` (a report of the same model whose serve phase ran), for
// attribution from two files. Throws UsageError when the models differ or `serve` has no serve levels.
RunReport merge_serve_report(RunReport comm, const RunReport& serve);

}  // namespace k25
