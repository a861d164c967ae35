// `k25comm history`: the nightly history. `add REPORT... --db FILE` files reports into the store (one
// transaction; a report already there adds nothing) and prints the history's verdict of their nights;
// `rebuild DIR` makes the store again from every report.json under DIR (the same rows); `page DB --out DIR`
// writes the static page and history.json; `metrics DB|REPORT` prints the latest figures as OpenMetrics text.
// Analysis over documents: no MPI.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "history/history_verdicts.hpp"

namespace k25 {

enum class HistoryAction { add, rebuild, page, metrics };

struct HistoryCommandOptions {
  HistoryAction action = HistoryAction::add;
  std::vector<std::string> reports;  // add: report.json (or journal.jsonl) files
  std::string db;                    // add, rebuild: --db; page: DB; metrics: DB or REPORT
  std::string dir;                   // rebuild: the folder searched for report.json files
  std::string out;                   // page: --out DIR; metrics: --out FILE (default standard output)
  HistoryOptions judgement;          // --window, --threshold, --persist, --max-ratio, --cp-pvalue, ...
};

// Returns 0 (verdicts are printed, never an exit code: tools/nightly's stays the comparison's). Throws
// UsageError (exit 2) naming the file for a report or store that cannot be read (the store then is as it
// was), RuntimeFault (exit 3) where the output cannot be written.
int run_history_command(const HistoryCommandOptions& options, std::ostream& out);

}  // namespace k25
