// capture.json's backends, as doctor reads them through capture's typed document.
#include "doctor/readers/capture_backends.hpp"

#include <fmt/format.h>

#include "analysis/capture_document.hpp"

namespace k25 {
namespace {

// One of trace.backend_rules as a sentence: "BACKEND ran on N ranks: RULE (source: SOURCE)"; empty where it
// has no backend or rule.
std::string backend_rule_note(const BackendRuleNote& rule) {
  if (rule.backend.empty() || rule.rule.empty()) return {};
  return fmt::format("{} ran{}: {}{}", rule.backend,
                     rule.ranks > 0 ? fmt::format(" on {} ranks", rule.ranks) : "", rule.rule,
                     rule.source.empty() ? "" : " (source: " + rule.source + ")");
}

}  // namespace

BackendsSeen backends_from_capture(const nlohmann::json& capture, const std::string& file) {
  const CaptureResult document = read_capture_document(capture, file);
  BackendsSeen seen;
  seen.file = file;
  const TraceResult& trace = document.trace;
  if (!trace.present) {
    seen.status = "the capture read no profiler trace (NCCL Inspector logs alone): no backend to compare";
    return seen;
  }
  for (const BackendRow& row : trace.backends) {
    BackendRun run;
    run.kind = row.kind;
    run.bytes = row.bytes;
    run.backend = row.backend;
    run.count = static_cast<long long>(row.count);
    run.op_us = row.op_us_p50;
    seen.runs.push_back(std::move(run));
  }
  for (const BackendRuleNote& rule : trace.backend_rules)
    if (std::string note = backend_rule_note(rule); !note.empty()) seen.notes.push_back(std::move(note));
  seen.status =
      seen.runs.empty() ? "the capture's trace named no collective's backend: nothing to compare" : "read";
  return seen;
}

bool has_capture_members(const nlohmann::json& json) {
  return looks_like_capture_json(json);
}

}  // namespace k25
