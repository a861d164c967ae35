// The caveats a report's data calls for, as run.notes lines.
#include "analysis/report_notes.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "common/count_noun.hpp"

namespace k25 {
namespace {

constexpr const char* kServeSkipped = "serve phase skipped: ";
constexpr const char* kServeLevel = "serve C=";
constexpr const char* kAttribution = "attribution: ";
constexpr const char* kOversubscribed = "oversubscribed: ";

bool starts_with_any(const std::string& note, std::initializer_list<const char*> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](const char* prefix) { return note.rfind(prefix, 0) == 0; });
}

std::vector<std::string> serve_level_notes(const ServeReport& serve) {
  std::vector<std::string> notes;
  for (const ServeLevel& level : serve.levels) {
    if (level.failed == 0 && level.completed > 0) continue;
    if (level.completed == 0) {
      notes.push_back(fmt::format(
          "{}{}: none of {} completed ({}): no latency or throughput figure at this concurrency, and the run "
          "failed (exit 3)",
          kServeLevel, level.concurrency, count_noun(level.requests, "request"), describe_errors(level)));
    } else {
      notes.push_back(fmt::format("{}{}: {} of {} failed ({}): its figures are over the {} that completed",
                                  kServeLevel, level.concurrency, level.failed,
                                  count_noun(level.requests, "request"), describe_errors(level),
                                  level.completed));
    }
  }
  return notes;
}

std::vector<std::string> attribution_notes(const std::vector<AttributionRow>& rows) {
  std::vector<std::string> over;
  for (const AttributionRow& row : rows)
    for (const CommShare& share : row.comm)
      if (share.share > 1.0)
        over.push_back(fmt::format("{} at C={} is {:.0f} % ({:.3g} ms of {:.3g} ms)", share.key,
                                   row.concurrency, share.share * 100.0, share.comm_ms, row.tpot_ms));
  if (over.empty()) return {};
  std::string list;
  for (const std::string& item : over) list += (list.empty() ? "" : "; ") + item;
  return {fmt::format(
      "{}communication above 100 % of TPOT: {}. A decode step cannot spend longer communicating than the "
      "step "
      "takes: the communication and serve figures do not describe the same system (other nodes, transport, "
      "rank count or settings), so these shares are not meaningful",
      kAttribution, list)};
}

std::vector<std::string> oversubscription_notes(const RunInfo& run) {
  std::map<std::string, int> ranks_per_host;
  for (const std::string& host : run.hosts) ++ranks_per_host[host];
  std::vector<std::string> notes;
  for (const auto& [host, ranks] : ranks_per_host) {
    const auto cores = run.host_cores.find(host);
    if (cores == run.host_cores.end() || cores->second <= 0 || ranks <= cores->second) continue;
    notes.push_back(fmt::format(
        "{}{} runs {} on {}: ranks share cores, so the host transport's times include the scheduler's time "
        "slicing, not only communication",
        kOversubscribed, host, count_noun(ranks, "rank"), count_noun(cores->second, "core")));
  }
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
    return starts_with_any(note, {kServeLevel, kAttribution, kOversubscribed}) ||
           (report.serve.ran && starts_with_any(note, {kServeSkipped}));
  });
  if (!report.serve.ran && !report.serve.skipped_reason.empty())
    add_note(run, kServeSkipped + report.serve.skipped_reason);
  for (const auto& notes :
       {oversubscription_notes(run), serve_level_notes(report.serve), attribution_notes(attribution)})
    for (const std::string& note : notes) add_note(run, note);
}

}  // namespace k25
