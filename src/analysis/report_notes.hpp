// Caveats derived from a report's own data (serve failures, shares above TPOT, oversubscribed hosts, a
// skipped serve phase), kept in run.notes and refreshed on every analysis so that a re-render or a merge
// never keeps a note its data no longer supports.
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

// Removes the derived notes (they start "serve C=", "attribution: ", "oversubscribed: ") and adds those the
// data supports now, after the notes the run recorded. "serve phase skipped: " notes are removed once the
// serve phase ran and added when serve.skipped_reason says why it did not.
void refresh_derived_notes(RunReport& report, const std::vector<AttributionRow>& attribution);

}  // namespace k25
