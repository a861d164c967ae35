// The history's verdict of some nights in words, for the console (`k25comm history add`, tools/nightly): per
// night its verdicts counted, each suspicious figure and regression with its ratio to the baseline, and the
// change points of the recent nights with what changed there.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "history/history_document.hpp"

namespace k25 {

// `nights`: (node, night) pairs, as the document names them. Lines start "history: ".
std::string history_summary(const HistoryDocument& doc,
                            const std::vector<std::pair<std::string, std::string>>& nights);

// "nccl 2.28.9 -> 2.29.7, driver 570.86 -> 575.51"; "nothing recorded changed" when empty.
std::string changes_text(const std::vector<FieldChange>& changed);

}  // namespace k25
