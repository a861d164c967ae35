// What the history says of its nights: every judged figure of every node judged night by night
// (analysis/history_judgement.hpp), its change points (analysis/change_points.hpp) each tied to the run
// fields that changed between the nights around it, the upgrades, and the latest verdicts, as one
// HistoryDocument.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "history/history_document.hpp"
#include "history/history_rows.hpp"

namespace k25 {

struct HistoryOptions {
  HistoryRules rules;
  ChangePointRules change_points;
};

// The method the change points are found by, in words (history.json, the page, the docs).
extern const char* const kChangePointMethod;

// Judges `nights` (any order; the store's nights()). `report_link` names each night's report as the document
// should link it (relative to where history.json is written).
HistoryDocument judge_history(const std::vector<HistoryNight>& nights, const HistoryOptions& options,
                              const std::function<std::string(const RunRow&)>& report_link);

// Why a night's run is not judged ("oversubscribed", "incomplete", "wrong results"); empty when it is.
std::string not_judged_reason(const RunRow& run, const HistoryRules& rules);

}  // namespace k25
