// The command line (CLI11): which command runs and which config values flags override.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/capture_command.hpp"
#include "config/run_config.hpp"

namespace k25 {

enum class Command { measure, dry_run, compare, report, capture, exit_now };

// Flags given on the command line; unset ones leave the config's values alone.
struct ConfigOverrides {
  std::optional<std::string> out_dir;
  std::vector<int> tokens;
  std::optional<int> iterations, warmup, op_iterations;
  std::optional<double> time_budget_s;
  std::vector<std::string> phases, modes;
  std::optional<std::string> backend, dtype, routing, copies, nccl_register;
  std::optional<double> timeout_s, zipf_s;
  std::optional<unsigned long long> seed;
  bool in_place = false, no_check = false, include_permute = false, no_trace = false, device_only = false;
  bool emulate_ranks = false;
  std::optional<std::string> endpoint, model, api, api_key;
  std::vector<int> concurrency;
  std::vector<double> percentiles;
  std::optional<int> requests, max_tokens, prompt_tokens;
  std::optional<double> request_rate;
  std::optional<std::string> inject_hang, inject_delay;
  std::optional<double> decode_gap_us, decode_layer_gap_us, decode_skew_us;
  std::optional<std::string> gaps_from;  // --gaps-from SERVE_REPORT.json (overrides --decode-layer-gap)
};

struct CommandLine {
  Command command = Command::measure;
  int exit_code = 0;        // for exit_now (--help, --version, parse errors)
  std::string config_path;  // --sizes
  ConfigOverrides overrides;
  int dry_run_ranks = 0;  // --ranks for --dry-run; 0: from the launcher's environment, else 8
  std::string compare_base, compare_new;
  double compare_threshold_pct = 5.0;
  double compare_max_ratio = 1.5;                   // a ratio beyond this fails whatever the spread
  std::vector<std::string> compare_allow_mismatch;  // setup fields allowed to differ (--allow-mismatch)
  bool compare_allow_missing = false;               // points on one side only do not fail
  std::string compare_format = "text";              // text, csv or json
  std::string report_input, report_serve, report_out;
  CaptureOptions capture;            // `k25comm capture`
  bool verbose = false;              // --verbose: errors also name the source location
  double progress_interval_s = 5.0;  // a serve level's progress line at most this often (hidden flag)
  std::string text;                  // the command line as given, for the report
};

// Parses argv. --help and --version print and return Command::exit_now with code 0; bad usage prints
// "k25comm: error: REASON" and returns exit_now with code 2. `print` is false on ranks other than the
// launcher's rank 0. List flags (--tokens 1,4,16) refuse empty items ("1,,4").
CommandLine parse_command_line(int argc, char** argv, bool print);

// Applies flags over a loaded config; throws ConfigError/UsageError for bad values (exit 2).
void apply_overrides(const ConfigOverrides& overrides, RunConfig& config);

// Where the config is looked for when --sizes is not given, in order: configs/kimi.yaml under the working
// directory, then beside the executable (an install's share/k25comm/configs/, a build directory's source
// tree: common/shared_files.hpp). `k25comm --help` lists them.
std::vector<std::string> default_config_candidates();

// The first of default_config_candidates() that exists; empty when none does.
std::string default_config_path();

}  // namespace k25
