// capture.json's backends, as doctor reads them.
#include "doctor/readers/capture_backends.hpp"

#include <fmt/format.h>

namespace k25 {
namespace {

// One of capture.json's trace.backend_rules ({backend, ranks, rule, source}) as a sentence: "BACKEND ran on N
// ranks: RULE (source: SOURCE)"; empty where it has no backend or rule.
std::string backend_rule_note(const nlohmann::json& rule) {
  const auto text = [&](const char* key) {
    return rule.is_object() && rule.contains(key) && rule[key].is_string() ? rule[key].get<std::string>()
                                                                           : std::string();
  };
  const std::string backend = text("backend"), words = text("rule"), source = text("source");
  if (backend.empty() || words.empty()) return {};
  const bool has_ranks = rule.contains("ranks") && rule["ranks"].is_number_integer();
  return fmt::format("{} ran{}: {}{}", backend,
                     has_ranks ? fmt::format(" on {} ranks", rule["ranks"].get<long long>()) : "", words,
                     source.empty() ? "" : " (source: " + source + ")");
}

}  // namespace

BackendsSeen backends_from_capture(const nlohmann::json& capture, const std::string& file) {
  BackendsSeen seen;
  seen.file = file;
  const nlohmann::json* trace =
      capture.is_object() && capture.contains("trace") ? &capture["trace"] : nullptr;
  if (trace == nullptr || !trace->is_object() || !trace->contains("backends")) {
    seen.status = "no trace.backends in the capture: nothing to compare";
    return seen;
  }
  const nlohmann::json& rows = (*trace)["backends"];
  if (!rows.is_array()) {
    seen.status = "trace.backends is not a list: nothing read";
    return seen;
  }
  seen = nlohmann::json{{"runs", rows}}.get<BackendsSeen>();
  seen.file = file;
  const std::size_t skipped = rows.size() - seen.runs.size();
  if (trace->contains("backend_rules") && (*trace)["backend_rules"].is_array())
    for (const nlohmann::json& rule : (*trace)["backend_rules"])
      if (const std::string note = backend_rule_note(rule); !note.empty()) seen.notes.push_back(note);
  seen.status =
      skipped == 0 ? "read" : fmt::format("read; {} rows without a kind and a backend left out", skipped);
  return seen;
}

bool has_capture_members(const nlohmann::json& json) {
  return json.is_object() && (json.contains("trace") || json.contains("schema_version"));
}

}  // namespace k25
