// The command line (CLI11): which command runs, and the flags that set config keys (registered from the one
// table of config keys, config/config_keys.hpp, and read through each key's own reader).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analysis/compare.hpp"
#include "app/capture_command.hpp"
#include "app/doctor_command.hpp"
#include "app/history_command.hpp"
#include "app/predict_command.hpp"
#include "config/config_keys.hpp"
#include "config/run_config.hpp"
#include "report/rerender.hpp"

namespace k25 {

enum class Command { measure, dry_run, compare, report, capture, predict, doctor, history, exit_now };

// A config key's flag as given: "--tokens" "1,4,16" (a list flag given twice has its items joined); a switch
// (--no-check) has no text.
struct ConfigFlag {
  const ConfigKey* key = nullptr;
  std::string text;
};

struct CommandLine {
  Command command = Command::measure;
  int exit_code = 0;                     // for exit_now (--help, --version, parse errors)
  std::string config_path;               // --sizes
  std::vector<ConfigFlag> config_flags;  // in the table's order; each already checked by its key's reader
  std::string gaps_from;                 // --gaps-from CAPTURE.json or SERVE_REPORT.json (the decode gaps)
  int dry_run_ranks = 0;                 // --ranks for --dry-run; 0: from the launcher's environment, else 8
  CompareOptions compare;                // `k25comm compare`
  RerenderOptions report;                // `k25comm report`
  CaptureOptions capture;                // `k25comm capture`
  PredictCommandOptions predict;         // `k25comm predict`
  DoctorCommandOptions doctor;           // `k25comm doctor`
  HistoryCommandOptions history;         // `k25comm history`
  bool verbose = false;                  // --verbose: errors also name the source location
  double progress_interval_s = 5.0;      // a serve level's progress line at most this often (hidden flag)
  std::string text;                      // the command line as given, secrets redacted, for the report

  // The text given for a config key's flag ("--out"), or nullptr when the flag was not given.
  const std::string* flag_text(const std::string& flag) const {
    for (const ConfigFlag& given : config_flags)
      if (given.key->flag != nullptr && flag == given.key->flag) return &given.text;
    return nullptr;
  }
};

// Parses argv. --help and --version print and return Command::exit_now with code 0; bad usage prints one line
// "k25comm: error: REASON" and returns exit_now with code 2: a bad flag value gives the reason its config
// key's reader gives for the same value in YAML; an unknown flag or command names the nearest known one.
// `print` is false on ranks other than the launcher's rank 0. List flags (--tokens 1,4,16) refuse empty items
// ("1,,4").
CommandLine parse_command_line(int argc, char** argv, bool print);

// Applies the config flags over a loaded config through their keys' readers, then --gaps-from; throws
// UsageError (exit 2) naming the flag.
void apply_command_line(const CommandLine& cli, RunConfig& config);

// Where the config is looked for when --sizes is not given, in order: configs/kimi.yaml under the working
// directory, then beside the executable (an install's share/k25comm/configs/, a build directory's source
// tree: common/shared_files.hpp). `k25comm --help` lists them.
std::vector<std::string> default_config_candidates();

// The first of default_config_candidates() that exists; empty when none does.
std::string default_config_path();

// The nearest of `known` to `given` (edits: insert, delete, replace, swap two neighbours), when it is close
// enough to be a typo (at most 2 edits, and fewer than half of `given`'s letters); empty otherwise.
std::string nearest_name(const std::string& given, const std::vector<std::string>& known);

}  // namespace k25
