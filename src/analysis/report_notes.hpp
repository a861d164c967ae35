// Caveats derived from a report's own data (serve failures, shares above TPOT, oversubscribed hosts, a
// skipped serve phase), kept in run.notes and listed in run.derived_notes, and refreshed on every analysis so
// that a re-render or a merge never keeps a note its data no longer supports. A note is derived because
// run.derived_notes lists it, never because of its wording: rewording a message breaks nothing.
#pragma once

#include <string>
#include <vector>

#include "analysis/attribution.hpp"
#include "analysis/run_report.hpp"

namespace k25 {

// Serve levels in which no counted request completed: they have no latency figure at all.
std::vector<const ServeLevel*> levels_without_completions(const ServeReport& serve);

// One line naming each level without completions and its error classes, e.g. "concurrency 1: 0 of 6
// requests completed (http_5xx 6 (HTTP 500: injected server failure))"; empty when every level completed
// some.
std::string describe_failed_levels(const ServeReport& serve);

// Removes the notes run.derived_notes lists and adds those the data supports now (after the notes the run
// recorded), listing them in run.derived_notes again: levels with failed requests, shares above TPOT, hosts
// with more ranks than cores, and why the serve phase did not run (serve.skipped_reason).
void refresh_derived_notes(RunReport& report, const std::vector<AttributionRow>& attribution);

// run.derived_notes of a report or journal line `j` whose notes are `notes`: its "derived_notes" where it has
// them, else (a report written before they were listed) the notes in the wording derived notes had then.
std::vector<std::string> derived_notes_of(const nlohmann::json& j, const std::vector<std::string>& notes);

}  // namespace k25
