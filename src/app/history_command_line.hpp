// The command line of `k25comm history` (CLI11): its four actions and the judgement's flags.
#pragma once

#include "app/history_command.hpp"

namespace CLI {
class App;
}

namespace k25 {

// Adds `history` and its actions to `app`, filling `options` when parsed.
CLI::App* add_history_command(CLI::App& app, HistoryCommandOptions& options);

// After parsing: which action ran, and the defaults that follow from the flags given.
void finish_history_command(const CLI::App& history, HistoryCommandOptions& options);

}  // namespace k25
