// CLI11 definition of k25comm's flags and subcommands: the config keys' flags made in one loop over the key
// table, the other flags by hand, and one-line messages (with a suggestion) for what is not understood.
#include "app/command_line.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <filesystem>
#include <optional>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "app/gaps_from_option.hpp"
#include "app/history_command_line.hpp"
#include "build_info.hpp"
#include "capture/readers/input_formats.hpp"
#include "common/error.hpp"
#include "common/redaction.hpp"
#include "common/shared_files.hpp"
#include "doctor/readers/input_formats.hpp"
#include "live_profile/live_capture_join.hpp"
#include "predict/input_formats.hpp"

namespace k25 {

std::vector<std::string> default_config_candidates() {
  std::vector<std::string> candidates;
  for (const std::filesystem::path& path : shared_file_lookup("configs/kimi.yaml"))
    candidates.push_back(path.string());
  return candidates;
}

std::string default_config_path() {
  const std::vector<std::string> candidates = default_config_candidates();
  return first_existing_file(std::vector<std::filesystem::path>(candidates.begin(), candidates.end()))
      .string();
}

std::string nearest_name(const std::string& given, const std::vector<std::string>& known) {
  // Optimal string alignment distance: Levenshtein plus a swap of two neighbours ("comapre").
  const auto distance = [](const std::string& a, const std::string& b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
      for (std::size_t j = 1; j <= b.size(); ++j) {
        const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
        d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
          d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    return d[a.size()][b.size()];
  };
  std::string best;
  std::size_t best_distance = 3;  // at most 2 edits
  for (const std::string& name : known) {
    const std::size_t edits = distance(given, name);
    if (edits < best_distance && 2 * edits < given.size()) {
      best = name;
      best_distance = edits;
    }
  }
  return best;
}

namespace {

// CLI11's own range checks print a double's bounds in full (300 digits for "positive"): this says it short.
CLI::Validator number_check(double low, bool low_inclusive) {
  const std::string bound = fmt::format("{} {:g}", low_inclusive ? "at least" : "above", low);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        std::size_t used = 0;
        double value = 0;
        try {
          value = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != text.size() || !std::isfinite(value))
          return fmt::format("'{}' is not a number", text);
        if (low_inclusive ? value < low : value <= low) return fmt::format("must be {}, got {}", bound, text);
        return {};
      },
      bound);
}

// A comma-separated list whose every item is one of `names`.
CLI::Validator names_check(const std::vector<std::string>& names) {
  return CLI::Validator(
      [names](std::string& text) -> std::string {
        std::size_t begin = 0;
        for (;;) {
          const std::size_t comma = text.find(',', begin);
          const std::string item = text.substr(begin, comma == std::string::npos ? comma : comma - begin);
          if (std::find(names.begin(), names.end(), item) == names.end())
            return fmt::format("'{}' is not one of: {}", item, join_names(names));
          if (comma == std::string::npos) return {};
          begin = comma + 1;
        }
      },
      "");
}

// Where the default config was looked for, in order, and which one is taken.
std::string default_config_footer() {
  const std::string taken = default_config_path();
  std::string text = "Without --sizes, the config is the first of these that exists:\n";
  for (const std::string& candidate : default_config_candidates())
    text += fmt::format("  {}{}\n", candidate, candidate == taken ? "  (found: the default)" : "");
  if (taken.empty()) text += "(none exists: pass --sizes FILE)\n";
  return text;
}

// A config key's flag while it is parsed: what CLI11 fills in.
struct FlagSlot {
  const ConfigKey* key = nullptr;
  std::vector<std::string> items;  // value flags; a list flag given twice has two
  bool switched = false;           // switches
  CLI::Option* option = nullptr;
};

// --help's text for a config key's flag: what the key means, and which key it sets.
std::string flag_help(const ConfigKey& key) {
  if (key.flag_kind == FlagKind::value) return fmt::format("{} ({})", key.meaning, key.path());
  return fmt::format("sets {} to {}: {}", key.path(), key.flag_kind == FlagKind::sets_true ? "true" : "false",
                     key.meaning);
}

// Every config key's flag, in the table's order.
std::deque<FlagSlot> add_config_flags(CLI::App& app) {
  std::deque<FlagSlot> slots;  // a deque: CLI11 keeps pointers into each slot
  for (const ConfigKey& key : config_keys()) {
    if (key.flag == nullptr) continue;
    FlagSlot& slot = slots.emplace_back();
    slot.key = &key;
    if (key.flag_kind == FlagKind::value) {
      slot.option =
          app.add_option(key.flag, slot.items, flag_help(key))->type_name(key.value.flag_value_name());
      // One value per occurrence; a list flag may be given again ("--tokens 1,4 --tokens 16"), a value once.
      slot.option->expected(key.bare_value != nullptr ? 0 : 1, 1)
          ->multi_option_policy(key.value.is_list() ? CLI::MultiOptionPolicy::TakeAll
                                                    : CLI::MultiOptionPolicy::Throw);
    } else {
      slot.option = app.add_flag(key.flag, slot.switched, flag_help(key));
    }
    if (key.listing == FlagListing::testing) slot.option->group("Testing");
    if (key.listing == FlagListing::hidden) slot.option->group("");
  }
  return slots;
}

// The long flags of `app` that --help lists ("--iters"), for suggestions.
std::vector<std::string> listed_flags(const CLI::App& app) {
  std::vector<std::string> flags;
  for (const CLI::Option* option : app.get_options())
    if (!option->get_group().empty())
      for (const std::string& name : option->get_lnames()) flags.push_back("--" + name);
  return flags;
}

// The one-line reason for the first argument nobody took, with the nearest flag or command.
std::string not_understood(const std::string& argument, const CLI::App& scope, bool top_level) {
  const std::string where = top_level ? "" : fmt::format(" for {}", scope.get_name());
  if (argument.size() > 1 && argument[0] == '-') {
    const std::string flag = argument.substr(0, argument.find('='));
    const std::string nearest = nearest_name(flag, listed_flags(scope));
    if (!nearest.empty()) return fmt::format("unknown flag {}{}; did you mean {}?", flag, where, nearest);
    return fmt::format("unknown flag {}{} (k25comm{} --help lists the flags)", flag, where,
                       top_level ? "" : " " + scope.get_name());
  }
  if (top_level) {
    std::vector<std::string> commands;
    for (const CLI::App* sub : scope.get_subcommands({})) commands.push_back(sub->get_name());
    const std::string nearest = nearest_name(argument, commands);
    if (!nearest.empty()) return fmt::format("unknown command '{}'; did you mean {}?", argument, nearest);
    return fmt::format("unexpected argument '{}' (commands: {})", argument, join_names(commands));
  }
  return fmt::format("unexpected argument '{}'{}", argument, where);
}

// The first argument (in argv's order) that `app` and its parsed subcommands left over, explained; empty when
// every argument was taken.
std::string leftover_problem(const CLI::App& app, int argc, char** argv) {
  std::vector<std::pair<std::string, const CLI::App*>> leftovers;
  for (const std::string& argument : app.remaining()) leftovers.emplace_back(argument, &app);
  for (const CLI::App* sub : app.get_subcommands())
    for (const std::string& argument : sub->remaining()) leftovers.emplace_back(argument, sub);
  if (leftovers.empty()) return {};
  for (int i = 1; i < argc; ++i)
    for (const auto& [argument, scope] : leftovers)
      if (argument == argv[i] || std::string(argv[i]).rfind(argument + "=", 0) == 0)  // "--flag=value"
        return not_understood(argument, *scope, scope == &app);
  return not_understood(leftovers.front().first, *leftovers.front().second, leftovers.front().second == &app);
}

// `k25comm capture --help`'s list of the input formats, from the readers' table of format families.
std::string capture_formats_footer() {
  std::string text = "Input formats (told by each file's content, never its name):\n";
  for (const FormatFamily& family : format_families())
    text += fmt::format("  {}: {} ({})\n", to_string(family.format), family.files, family.from);
  return text;
}

// What the flags fill in that becomes part of CommandLine only once the command is known (negated switches, a
// format's name).
struct ParsedSwitches {
  bool dry_run = false;
  std::string compare_format;
  bool report_no_plots = false;
  bool capture_no_plots = false;
  bool predict_no_plots = false;
  bool doctor_no_measure = false, doctor_no_plots = false;
};

// The subcommands, to ask which one was parsed.
struct Subcommands {
  CLI::App* compare = nullptr;
  CLI::App* report = nullptr;
  CLI::App* capture = nullptr;
  CLI::App* predict = nullptr;
  CLI::App* doctor = nullptr;
  CLI::App* history = nullptr;
};

// The measuring command's own flags (the config keys' among them, returned: CLI11 fills them in).
std::deque<FlagSlot> add_measure_options(CLI::App& app, CommandLine& cli, ParsedSwitches& switches) {
  app.set_version_flag("--version", version_text);
  app.require_subcommand(0, 1);
  app.add_flag("--verbose", cli.verbose, "errors also name the source file and line they were raised at");
  app.add_option(
      "--sizes,--config", cli.config_path,
      fmt::format(
          "YAML config with the sections {} (default: kimi.yaml, looked for as the end of this help says)",
          join_names(config_sections())));
  std::deque<FlagSlot> config_flags = add_config_flags(app);
  app.add_option(
         "--gaps-from", cli.gaps_from,
         "decode mode: a capture.json's live step shape (each op's compute gap, each rank's arrivals), or from a report.json with serve results the compute per layer = TPOT minus the step's communication, spread over the layers (sets sweep.decode_layer_gap_us)")
      ->check(CLI::ExistingFile);
  app.add_option("--progress-interval", cli.progress_interval_s, "test only: seconds between progress lines")
      ->check(number_check(0, false))
      ->group("");  // hidden
  app.add_flag("--dry-run", switches.dry_run, "print the plan (and write plan.json) without communicating");
  app.add_option("--ranks", cli.dry_run_ranks,
                 "ranks to plan for with --dry-run (default: the launcher's, else 8)")
      ->check(CLI::Range(1, 65536));
  return config_flags;
}

// `k25comm compare BASE NEW`.
CLI::App* add_compare_command(CLI::App& app, CompareOptions& cmp, ParsedSwitches& switches) {
  std::vector<std::string> setup_field_names;
  for (const SetupField& field : setup_fields()) setup_field_names.push_back(field.name);
  auto* compare = app.add_subcommand(
      "compare",
      "compare two report.json files: exit 1 on a regression or a missing point, 2 when not comparable");
  compare->add_option("base", cmp.base_path, "baseline report.json")->required();
  compare->add_option("new", cmp.new_path, "new report.json")->required();
  compare
      ->add_option("--threshold", cmp.rules.threshold_pct,
                   "p50 change in percent that counts as a regression when beyond the runs' spread too")
      ->check(number_check(0, true));
  compare
      ->add_option(
          "--max-ratio", cmp.rules.max_ratio,
          fmt::format(
              "a figure worse by more than this factor is a regression whatever the spread (default {:g})",
              cmp.rules.max_ratio))
      ->check(number_check(1, false));
  compare
      ->add_option("--allow-mismatch", cmp.rules.allow_mismatch,
                   "compare points whose setup differs in these fields")
      ->delimiter(',')
      ->type_name(fmt::format("LIST of {}", join_names(setup_field_names, "|")))
      ->check(names_check(setup_field_names));
  compare->add_flag("--allow-missing", cmp.rules.allow_missing,
                    "points measured on one side only are listed but do not fail");
  compare->add_flag(
      "--judge-oversubscribed", cmp.rules.judge_oversubscribed,
      "judge the timings of oversubscribed runs too (by default they are reported, not judged)");
  compare->add_option("--format", switches.compare_format, "output (default text)")
      ->type_name(join_names(enum_names<CompareFormat>(), "|"))
      ->check(names_check(enum_names<CompareFormat>()));
  return compare;
}

// `k25comm report FILE`.
CLI::App* add_report_command(CLI::App& app, RerenderOptions& rerender, ParsedSwitches& switches) {
  auto* report = app.add_subcommand(
      "report", "re-render report.md, report.json, CSV and plots from report.json or a journal");
  report->add_option("file", rerender.input_path, "report.json or journal.jsonl")->required();
  report->add_option(
      "--serve", rerender.serve_path,
      "a second report whose serve results join the attribution (written to --out, default a new folder beside FILE: the inputs are never overwritten)");
  report->add_option(
      "--backends-from", rerender.backends_from,
      "another run's report.json whose AllReduce rows join this one's backends table, named after what sets them apart (a tools/nccl-sweep variant, a --nccl-register symmetric run); repeatable; written to --out, default a new folder beside FILE");
  report->add_option("--out", rerender.out_dir, "output directory (default: beside FILE)");
  report->add_option(
      "--capture", rerender.capture_inputs,
      "a profiled run's trace folder read later, joined to its live profile: C:DIR for level C, or DIR for the next level not read (docs/live-profile.md)");
  report->add_flag("--no-plots", switches.report_no_plots, "do not run tools/plot-report");
  return report;
}

// `k25comm capture PATH...`.
CLI::App* add_capture_command(CLI::App& app, CaptureOptions& cap, ParsedSwitches& switches) {
  auto* capture = app.add_subcommand(
      "capture",
      "read what a live server left behind (Inspector logs, Kineto traces, nsys exports): its collectives, its step's time by kernel class, vs the replay");
  capture
      ->add_option(
          "inputs", cap.inputs,
          "files and folders, each file's format told by its content, never its name: " + formats_list())
      ->required();
  capture->footer(capture_formats_footer());
  capture->add_option("--kernel-classes", cap.kernel_classes,
                      "a kernel-class table (YAML) tried before the shipped data/kernel-classes.yaml");
  capture
      ->add_option(
          "--step-gap-us", cap.step_gap_us,
          "traces without step marks or a pattern of collectives: a GPU idle gap this long ends a step (default 100)")
      ->check(CLI::PositiveNumber);
  capture->add_option("--model", cap.model_config, "k25comm config whose model turns sizes into tokens");
  capture->add_option("--replay", cap.replay_path,
                      "k25comm report.json to compare per-op and per-step times with");
  capture->add_option("--serve", cap.serve_path, "k25comm report.json whose serve phase gives TPOT");
  capture->add_option("--tpot", cap.tpot_ms, "TPOT in milliseconds measured elsewhere");
  capture->add_option("--out", cap.out_dir, "output directory (default k25comm-capture)");
  capture->add_option("--emit-config", cap.emit_config, "write a config replaying the captured step");
  capture->add_option("--prefill-factor", cap.prefill_factor,
                      "prefill: steps above a jump of this x between step sizes (default 4)");
  capture
      ->add_option("--prefill-tokens", cap.prefill_tokens,
                   "prefill: steps above this many tokens (needs --model)")
      ->check(CLI::PositiveNumber);
  capture->add_flag("--no-plots", switches.capture_no_plots, "do not run tools/plot-capture");
  return capture;
}

// `k25comm predict BASE --with ALT...`.
CLI::App* add_predict_command(CLI::App& app, PredictCommandOptions& pred, ParsedSwitches& switches) {
  auto* predict = app.add_subcommand(
      "predict",
      "what a step and TPOT would be on another node, link, backend or mode: the base's live step with the alternatives' per-op figures (predicted, never measured)");
  predict
      ->add_option("base", pred.base_path,
                   "what the system does now, its format told by its content: " + base_formats_help())
      ->required();
  predict
      ->add_option("--with", pred.alt_paths,
                   "an alternative's per-op figures, its format told by its content: " + alt_formats_help() +
                       "; repeatable")
      ->required();
  predict->add_option("--label", pred.labels,
                      "the name of each --with, in order (default: its file or folder name)");
  predict->add_option(
      "--kind", pred.kinds,
      "the collective of each --with, in order, where its file does not say it (nccl-tests before 2.16.7); '-' for none");
  predict->add_option(
      "--backend", pred.backends,
      "the AllReduce backend of each --with replay report (--allreduce-backends) whose measured rows stand for it, in order; '-' for none");
  predict->add_option("--out", pred.out_dir, "output directory (default k25comm-predict)");
  predict->add_flag(
      "--extrapolate", pred.extrapolate,
      "sizes outside an alternative's measured range: labelled extrapolated instead of refused");
  predict->add_flag("--no-plots", switches.predict_no_plots, "do not run tools/plot-predict");
  return predict;
}

// `k25comm doctor`.
CLI::App* add_doctor_command(CLI::App& app, DoctorCommandOptions& doc, ParsedSwitches& switches) {
  auto* doctor = app.add_subcommand(
      "doctor",
      "why this node's collectives cost what they cost: each GPU pair's path, ACS and IOMMU, links below their maximum, NCCL's transport, measured P2P; or --compare A B");
  doctor->add_option("--out", doc.out_dir, "output directory (default k25comm-doctor)");
  doctor->add_option(
      "--root", doc.root,
      "read sys/ and proc/ under this folder (a copy of another host's, a test fixture; / for this host's where the inputs are another node's)");
  doctor->add_option("--host", doc.host,
                     "the node's name to record (default: the inputs', else this host's)");
  doctor
      ->add_option(
          "--from", doc.from,
          "what was pasted from the node: files or folders, each file's formats told by its content (" +
              doctor_formats_list() + "); repeatable")
      ->type_name("FILE|DIR");
  doctor->add_option("--nccl-topo", doc.nccl_topo,
                     "NCCL's topology dump (the XML NCCL_TOPO_DUMP_FILE wrote)");
  doctor->add_option("--nccl-log", doc.nccl_logs,
                     "NCCL_DEBUG=INFO output: a file or a folder of files; repeatable");
  doctor->add_option("--capture", doc.capture,
                     "a capture.json whose trace.backends say which all-reduce backend ran");
  doctor
      ->add_option("--compare", doc.compare,
                   "list what differs between two doctor outputs, reports or captures (files or folders)")
      ->expected(2);
  doctor->add_flag("--no-measure", switches.doctor_no_measure, "do not measure P2P copies between the GPUs");
  doctor->add_flag("--no-plots", switches.doctor_no_plots, "do not run tools/plot-doctor");
  return doctor;
}

// Every config flag given through its key's reader, on a scratch config, so that a bad value is refused with
// the reason the same value in YAML gets, before any config is loaded; the flags kept in `cli`. The first
// reason, empty when every value is good.
std::string check_config_flags(const std::deque<FlagSlot>& config_flags, CommandLine& cli) {
  RunConfig scratch;
  for (const FlagSlot& slot : config_flags) {
    if (slot.option->count() == 0) continue;
    // A flag that may stand alone (--profile): CLI11 gives no item, or one empty item, when it does.
    const bool alone = std::all_of(slot.items.begin(), slot.items.end(),
                                   [](const std::string& item) { return item.empty(); });
    ConfigFlag flag{slot.key, alone && slot.key->bare_value != nullptr ? std::string(slot.key->bare_value)
                                                                       : join_names(slot.items, ",")};
    try {
      apply_flag(*flag.key, flag.text, scratch);
    } catch (const UsageError& e) {
      return e.what();
    }
    cli.config_flags.push_back(std::move(flag));
  }
  return {};
}

// Which command runs, and what its options take from the switches; the reason it cannot run, empty when it
// can.
std::string choose_command(const Subcommands& commands, const ParsedSwitches& switches, CommandLine& cli) {
  if (commands.compare->parsed()) {
    cli.command = Command::compare;
    if (!switches.compare_format.empty())
      cli.compare.format = *enum_from_name<CompareFormat>(switches.compare_format);
  } else if (commands.report->parsed()) {
    cli.command = Command::report;
    cli.report.plots = !switches.report_no_plots;
    cli.report.join_captures = [inputs = cli.report.capture_inputs](RunReport& joined) {
      join_live_captures(joined, inputs);
    };
  } else if (commands.predict->parsed()) {
    cli.command = Command::predict;
    cli.predict.command_line = cli.text;
    cli.predict.plots = !switches.predict_no_plots;
  } else if (commands.doctor->parsed()) {
    cli.command = Command::doctor;
    cli.doctor.measure = !switches.doctor_no_measure;
    cli.doctor.plots = !switches.doctor_no_plots;
    cli.doctor.command_line = cli.text;
  } else if (commands.history->parsed()) {
    cli.command = Command::history;
    finish_history_command(*commands.history, cli.history);
  } else if (commands.capture->parsed()) {
    cli.command = Command::capture;
    cli.capture.plots = !switches.capture_no_plots;
    cli.capture.command_line = cli.text;
  } else {
    cli.command = switches.dry_run ? Command::dry_run : Command::measure;
    if (cli.config_path.empty()) cli.config_path = default_config_path();
    if (cli.config_path.empty())
      return fmt::format("no --sizes given and no default config found; looked for {}",
                         join_names(default_config_candidates()));
  }
  return {};
}

}  // namespace

CommandLine parse_command_line(int argc, char** argv, bool print) {
  CommandLine cli;
  const std::vector<std::string> words(argv, argv + argc);
  cli.text = redact_command_line(words);
  const auto usage_error = [&](const std::string& reason) {
    if (print) fmt::print(stderr, "k25comm: error: {}\n", redact_text(reason));
    cli.command = Command::exit_now;
    cli.exit_code = static_cast<int>(ExitCode::bad_usage);
    return cli;
  };

  CLI::App app{
      "k25comm: replays the collectives of one MoE decode step on MPI ranks (one per GPU), measures them,\n"
      "measures a serving endpoint's decode latency, and reports what share of a step is communication."};
  ParsedSwitches switches;
  std::deque<FlagSlot> config_flags = add_measure_options(app, cli, switches);  // CLI11 fills them in
  Subcommands commands;
  commands.compare = add_compare_command(app, cli.compare, switches);
  commands.report = add_report_command(app, cli.report, switches);
  commands.capture = add_capture_command(app, cli.capture, switches);
  commands.predict = add_predict_command(app, cli.predict, switches);
  commands.doctor = add_doctor_command(app, cli.doctor, switches);
  commands.history = add_history_command(app, cli.history);

  // After the subcommands: they copy the footer when made, and it is about the measuring command alone.
  app.footer(default_config_footer());
  // Arguments nobody takes are explained below, with the nearest flag or command.
  app.allow_extras();
  for (CLI::App* sub : app.get_subcommands({})) sub->allow_extras();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const bool asked_for_text = e.get_exit_code() == 0;  // --help, --version
    // An option nobody takes is the cause of what it left missing ("--width FILE": --with is required).
    if (!asked_for_text) {
      const std::string problem = leftover_problem(app, argc, argv);
      return usage_error(problem.empty() ? std::string(e.what()) : problem);
    }
    cli.command = Command::exit_now;
    cli.exit_code = print ? app.exit(e) : 0;
    return cli;
  }
  if (const std::string problem = leftover_problem(app, argc, argv); !problem.empty())
    return usage_error(problem);
  if (const std::string problem = check_config_flags(config_flags, cli); !problem.empty())
    return usage_error(problem);
  if (const std::string problem = choose_command(commands, switches, cli); !problem.empty())
    return usage_error(problem);
  return cli;
}

void apply_command_line(const CommandLine& cli, RunConfig& config) {
  for (const ConfigFlag& flag : cli.config_flags) apply_flag(*flag.key, flag.text, config);
  if (!cli.gaps_from.empty()) apply_gaps_from(cli.gaps_from, config);
}

}  // namespace k25
