// The caveats a report's data calls for, as run.notes lines.
#include "analysis/report_notes.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "analysis/report_identity.hpp"
#include "common/count_noun.hpp"

namespace k25 {
namespace {

// How derived notes began in reports written before run.derived_notes listed them (k25comm 0.1.0, schema 2
// and older). Frozen: only such old reports are read with it, so today's wording may change freely.
constexpr std::array<const char*, 4> kLegacyDerivedPrefixes = {
    "serve phase skipped: ", "serve C=", "attribution: ", "oversubscribed: "};

std::vector<std::string> serve_level_notes(const ServeReport& serve) {
  std::vector<std::string> notes;
  for (const ServeLevel& level : serve.levels) {
    if (level.failed == 0 && level.completed > 0) continue;
    if (level.completed == 0) {
      notes.push_back(fmt::format(
          "serve C={}: none of {} completed ({}): no latency or throughput figure at this concurrency, and the run failed (exit 3)",
          level.concurrency, count_noun(level.requests, "request"), describe_errors(level)));
    } else {
      notes.push_back(fmt::format(
          "serve C={}: {} of {} failed ({}): its figures are over the {} that completed", level.concurrency,
          level.failed, count_noun(level.requests, "request"), describe_errors(level), level.completed));
    }
  }
  return notes;
}

std::vector<std::string> attribution_notes(const std::vector<AttributionRow>& rows) {
  std::vector<std::string> over;
  for (const AttributionRow& row : rows)
    for (const CommShare& share : row.comm)
      if (share.share > 1.0)
        over.push_back(fmt::format("{} at C={} is {:.0f} % ({:.3g} ms of {:.3g} ms)", share.key.text(),
                                   row.concurrency, share.share * 100.0, share.comm_ms, row.tpot_ms));
  if (over.empty()) return {};
  std::string list;
  for (const std::string& item : over) list += (list.empty() ? "" : "; ") + item;
  return {fmt::format(
      "attribution: communication above 100 % of TPOT: {}. "
      "A decode step cannot spend longer communicating than the step takes: the communication and serve figures do not describe the same system (other nodes, transport, rank count or settings), so these shares are not meaningful",
      list)};
}

std::vector<std::string> oversubscription_notes(const RunInfo& run) {
  std::vector<std::string> notes;
  for (const OversubscribedHost& h : oversubscribed_hosts(run))
    notes.push_back(fmt::format(
        "oversubscribed: {} runs {} on {}: ranks share cores, so the host transport's times include the scheduler's time slicing, not only communication",
        h.host, count_noun(h.ranks, "rank"), count_noun(h.cores, "core")));
  return notes;
}

}  // namespace

std::vector<const ServeLevel*> levels_without_completions(const ServeReport& serve) {
  std::vector<const ServeLevel*> levels;
  for (const ServeLevel& level : serve.levels)
    if (level.completed == 0) levels.push_back(&level);
  return levels;
}

std::string describe_failed_levels(const ServeReport& serve) {
  std::string text;
  for (const ServeLevel* level : levels_without_completions(serve))
    text += fmt::format("{}concurrency {}: 0 of {} completed ({})", text.empty() ? "" : "; ",
                        level->concurrency, count_noun(level->requests, "request"), describe_errors(*level));
  return text;
}

void refresh_derived_notes(RunReport& report, const std::vector<AttributionRow>& attribution) {
  RunInfo& run = report.run;
  std::erase_if(run.notes, [&](const std::string& note) {
    return std::find(run.derived_notes.begin(), run.derived_notes.end(), note) != run.derived_notes.end();
  });
  run.derived_notes.clear();
  std::vector<std::string> derived;
  if (!report.serve.ran && !report.serve.skipped_reason.empty())
    derived.push_back("serve phase skipped: " + report.serve.skipped_reason);
  for (const auto& notes :
       {oversubscription_notes(run), serve_level_notes(report.serve), attribution_notes(attribution)})
    derived.insert(derived.end(), notes.begin(), notes.end());
  for (const std::string& note : derived) {
    if (std::find(run.notes.begin(), run.notes.end(), note) != run.notes.end()) continue;  // recorded already
    run.notes.push_back(note);
    run.derived_notes.push_back(note);
  }
}

std::vector<std::string> derived_notes_of(const nlohmann::json& j, const std::vector<std::string>& notes) {
  if (j.is_object() && j.contains("derived_notes"))
    return j.at("derived_notes").get<std::vector<std::string>>();
  std::vector<std::string> derived;
  for (const std::string& note : notes)
    if (std::any_of(kLegacyDerivedPrefixes.begin(), kLegacyDerivedPrefixes.end(),
                    [&](const char* prefix) { return note.rfind(prefix, 0) == 0; }))
      derived.push_back(note);
  return derived;
}

}  // namespace k25
