// `k25comm history`'s flags (history_command_line.hpp).
#include "app/history_command_line.hpp"

#include <CLI/CLI.hpp>

namespace k25 {
namespace {

// The judgement's flags, on the actions that judge (add prints the verdict, page shows it).
void add_judgement_flags(CLI::App& action, HistoryOptions& judgement) {
  HistoryRules& rules = judgement.rules;
  action.add_option("--window", rules.window, "baseline: this many earlier nights that passed (default 7)")
      ->check(CLI::PositiveNumber);
  action
      .add_option("--threshold", rules.threshold_pct,
                  "percent: a change smaller than this is never suspicious, nor a change point (default 5)")
      ->check(CLI::NonNegativeNumber);
  action
      .add_option("--persist", rules.persist,
                  "suspicious this many nights in a row: a regression (default 2)")
      ->check(CLI::PositiveNumber);
  action
      .add_option("--max-ratio", rules.max_ratio,
                  "worse by more than this factor is suspicious whatever the window's spread (default 1.5)")
      ->check(CLI::Range(1.0, 1e9).description("at least 1"));
  action.add_flag("--judge-oversubscribed", rules.judge_oversubscribed,
                  "judge the nights of oversubscribed runs too (as compare's flag)");
  action
      .add_option("--cp-pvalue", judgement.change_points.max_pvalue,
                  "change points: the t-test's largest p-value (default 0.001)")
      ->check(CLI::Range(1e-300, 1.0).description("above 0, at most 1"));
  action
      .add_option("--cp-window", judgement.change_points.window,
                  "change points: the split step's window in nights (default 50)")
      ->check(CLI::Range(3, 100000).description("at least 3"));
}

}  // namespace

CLI::App* add_history_command(CLI::App& app, HistoryCommandOptions& options) {
  auto* history = app.add_subcommand(
      "history",
      "the nightly history: every night of every node in one SQLite store, judged over a window of earlier nights, with change points tied to what changed; a static page and OpenMetrics text");
  history->require_subcommand(1);
  auto* add = history->add_subcommand(
      "add",
      "add reports to the store (one transaction; a run already there adds nothing) and print their verdict");
  add->add_option("reports", options.reports, "report.json (or a crashed run's journal.jsonl) files")
      ->required();
  add->add_option("--db", options.db, "the store (created where missing)")->required();
  add_judgement_flags(*add, options.judgement);
  auto* rebuild = history->add_subcommand(
      "rebuild", "make the store again from every report.json under DIR: the same rows as adding them");
  rebuild->add_option("dir", options.dir, "a nightly's OUT_ROOT, or any folder of reports")->required();
  rebuild->add_option("--db", options.db, "the store written (default DIR/history.sqlite; replaced whole)");
  auto* page = history->add_subcommand(
      "page", "write a static page (index.html, history.json and what they need) of the store's history");
  page->add_option("db", options.db, "the store")->required();
  page->add_option("--out", options.out, "the page's folder")->required();
  add_judgement_flags(*page, options.judgement);
  auto* metrics = history->add_subcommand(
      "metrics",
      "print the latest figures of each node as OpenMetrics text (node_exporter's textfile collector, a Pushgateway)");
  metrics->add_option("input", options.db, "the store, or one report.json")->required();
  metrics->add_option("--out", options.out, "write to this file (atomically) instead of standard output");
  return history;
}

void finish_history_command(const CLI::App& history, HistoryCommandOptions& options) {
  for (const auto& [name, action] :
       {std::pair{"add", HistoryAction::add}, std::pair{"rebuild", HistoryAction::rebuild},
        std::pair{"page", HistoryAction::page}, std::pair{"metrics", HistoryAction::metrics}})
    if (history.get_subcommand(name)->parsed()) options.action = action;
  // A change smaller than the threshold is never reported as a change point either.
  options.judgement.change_points.min_magnitude = options.judgement.rules.threshold_pct / 100.0;
}

}  // namespace k25
