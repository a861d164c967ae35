// CLI11 definition of k25comm's flags and subcommands, and how flags override the YAML config.
#include "app/command_line.hpp"
#include "app/gaps_from_option.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <type_traits>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "build_info.hpp"
#include "common/error.hpp"
#include "common/shared_files.hpp"
#include "config/config_keys.hpp"
#include "config/config_loader.hpp"

namespace k25 {

std::vector<std::string> default_config_candidates() {
  std::vector<std::string> candidates{"configs/kimi.yaml"};
  for (const std::filesystem::path& path : shared_file_candidates("configs/kimi.yaml"))
    candidates.push_back(path.string());
  return candidates;
}

std::string default_config_path() {
  const std::vector<std::string> candidates = default_config_candidates();
  return first_existing_file(std::vector<std::filesystem::path>(candidates.begin(), candidates.end()))
      .string();
}

namespace {

// CLI11's own range checks print a double's bounds in full (300 digits for "positive"): these say it short.
std::optional<double> as_number(const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<long long> as_integer(const std::string& text) {
  std::size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size()) return std::nullopt;
  return value;
}

// A number above `low` (or at least `low` when `low_inclusive`), and at most `high` when given.
CLI::Validator number_check(double low, bool low_inclusive, std::optional<double> high = std::nullopt) {
  const std::string bound = fmt::format("{} {:g}", low_inclusive ? "at least" : "above", low);
  const std::string description = high ? fmt::format("{} and at most {:g}", bound, *high) : bound;
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const std::optional<double> value = as_number(text);
        if (!value) return fmt::format("'{}' is not a number", text);
        if (low_inclusive ? *value < low : *value <= low)
          return fmt::format("must be {}, got {}", bound, text);
        if (high && *value > *high) return fmt::format("must be at most {:g}, got {}", *high, text);
        return {};
      },
      description);
}

// An integer in [low, high].
CLI::Validator integer_check(long long low, long long high = std::numeric_limits<int>::max()) {
  const std::string description = high == std::numeric_limits<int>::max()
                                      ? fmt::format("an integer of at least {}", low)
                                      : fmt::format("an integer from {} to {}", low, high);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const std::optional<long long> value = as_integer(text);
        if (!value) return fmt::format("'{}' is not an integer", text);
        if (*value < low || *value > high) return fmt::format("must be {}, got {}", description, text);
        return {};
      },
      description);
}

CLI::Validator one_of(std::vector<std::string> names) {
  std::string joined;
  for (const std::string& name : names) joined += (joined.empty() ? "" : ", ") + name;
  return CLI::Validator(
      [names, joined](std::string& text) -> std::string {
        if (std::find(names.begin(), names.end(), text) != names.end()) return {};
        return fmt::format("'{}' is not one of: {}", text, joined);
      },
      "one of: " + joined);
}

// "1,,4" keeps its empty item (CLI11's own delimiter drops it silently).
std::vector<std::string> split_items(const std::string& text) {
  std::vector<std::string> items;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t comma = text.find(',', begin);
    items.push_back(text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
    if (comma == std::string::npos) return items;
    begin = comma + 1;
  }
}

// A comma-separated list whose every item passes `item`; an empty item is an error.
CLI::Validator list_of(CLI::Validator item) {
  return CLI::Validator(
      [item](std::string& text) -> std::string {
        for (std::string entry : split_items(text)) {
          if (entry.empty())
            return fmt::format("'{}' has an empty item (separate items with single commas)", text);
          const std::string error = item(entry);
          if (!error.empty()) return fmt::format("item {}", error);
        }
        return {};
      },
      "comma-separated list, each " + item.get_description());
}

template <typename T>
std::vector<T> list_values(const std::vector<std::string>& raw) {
  std::vector<T> values;
  for (const std::string& text : raw)
    for (const std::string& item : split_items(text)) {
      if constexpr (std::is_same_v<T, std::string>) {
        values.push_back(item);
      } else if constexpr (std::is_integral_v<T>) {
        values.push_back(static_cast<T>(*as_integer(item)));  // checked by the option's validator
      } else {
        values.push_back(*as_number(item));
      }
    }
  return values;
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

}  // namespace

CommandLine parse_command_line(int argc, char** argv, bool print) {
  CommandLine cli;
  for (int i = 0; i < argc; ++i) cli.text += (i ? " " : "") + std::string(argv[i]);
  ConfigOverrides& o = cli.overrides;
  std::vector<std::string> tokens, phases, modes, concurrency, percentiles, allow_mismatch;

  CLI::App app{
      "k25comm: replays the collectives of one MoE decode step on MPI ranks (one per GPU), measures them,\n"
      "measures a serving endpoint's decode latency, and reports what share of a step is communication."};
  app.footer(default_config_footer());
  app.set_version_flag("--version", version_text);
  app.require_subcommand(0, 1);
  app.add_flag("--verbose", cli.verbose, "errors also name the source file and line they were raised at");
  app.add_option("--sizes,--config", cli.config_path,
                 "YAML config: model, sweep, routing, serve (default: kimi.yaml, looked for as the end of "
                 "this help says)");
  app.add_option("--out", o.out_dir, "output directory (journal.jsonl, report.json, report.md, trace.json)");
  app.add_option("--tokens", tokens,
                 "token counts to measure, e.g. 1,4,16: per decode step for AllReduce, per rank for "
                 "dispatch/combine")
      ->check(list_of(integer_check(1, 65536)));
  app.add_option("--iters", o.iterations, "timed trials (whole bursts) per point, at most")
      ->check(integer_check(1));
  app.add_option("--warmup", o.warmup, "untimed bursts before each point (at least 1: NCCL connects lazily)")
      ->check(integer_check(1));
  app.add_option("--op-iters", o.op_iterations,
                 "trials of the per-op timing pass, at most (0: no per-op pass)")
      ->check(integer_check(0));
  app.add_option("--time-budget", o.time_budget_s, "seconds per point after which trials stop")
      ->check(number_check(0, false));
  app.add_option("--phases", phases, "phases to run: allreduce,alltoall,serve")
      ->check(list_of(one_of({"allreduce", "alltoall", "serve"})));
  app.add_option("--modes", modes,
                 "timing modes: eager,graph,decode (graph needs the nccl transport; decode: a compute gap "
                 "before each op, sweep.decode_*)")
      ->check(list_of(one_of({"eager", "graph", "decode"})));
  app.add_option("--decode-gap", o.decode_gap_us, "decode mode: compute gap before every op, us")
      ->check(number_check(0, true, 1e6));
  app.add_option("--decode-layer-gap", o.decode_layer_gap_us,
                 "decode mode: compute per decoder layer, us, split over the layer's ops")
      ->check(number_check(0, true, 1e6));
  app.add_option("--decode-skew", o.decode_skew_us,
                 "decode mode: largest seeded extra gap per rank and op, us (unequal arrival)")
      ->check(number_check(0, true, 1e6));
  app.add_option("--gaps-from", o.gaps_from,
                 "decode mode: compute per layer = TPOT minus the step's communication, from a report.json "
                 "with serve results, spread over the layers")
      ->check(CLI::ExistingFile);
  app.add_option("--backend", o.backend, "transport: auto, nccl or mpi")
      ->check(one_of({"auto", "nccl", "mpi"}));
  app.add_option("--nccl-register", o.nccl_register,
                 "nccl: register the send and receive buffers: none, local (ncclCommRegister) or symmetric "
                 "(ncclCommWindowRegister), as nccl-tests -R 0/1/2")
      ->check(one_of({"none", "local", "symmetric"}));
  app.add_option("--timeout", o.timeout_s, "seconds a collective may take before the run aborts (exit 3)")
      ->check(number_check(0, false));
  app.add_option("--dtype", o.dtype, "AllReduce element type: bf16 or fp32")->check(one_of({"bf16", "fp32"}));
  app.add_flag("--in-place", o.in_place, "AllReduce in place (default out of place)");
  app.add_flag("--no-check", o.no_check, "skip the correctness pass");
  app.add_flag("--include-permute", o.include_permute,
               "nccl: count MoE pack/unpack kernels in the All-to-All step");
  app.add_flag("--no-trace", o.no_trace, "do not write trace.json");
  app.add_flag(
      "--device-only", o.device_only,
      "nccl: hold the stream until a burst is enqueued, so the step excludes the host's launch cost");
  app.add_option("--routing", o.routing, "routing model: uniform or zipf")
      ->check(one_of({"uniform", "zipf"}));
  app.add_option("--zipf-s", o.zipf_s, "Zipf exponent over experts")->check(number_check(0, true, 10.0));
  app.add_option("--copies", o.copies, "All-to-All copies: per_rank (normal) or per_expert (low-latency)")
      ->check(one_of({"per_rank", "per_expert"}));
  app.add_option("--seed", o.seed, "routing seed");
  app.add_option("--endpoint", o.endpoint, "serving endpoint base URL, e.g. http://127.0.0.1:8000");
  app.add_option("--model", o.model, "model name sent to the endpoint");
  app.add_option("--api", o.api, "chat or completions")->check(one_of({"chat", "completions"}));
  app.add_option("--api-key", o.api_key, "bearer token for the endpoint");
  app.add_option("--concurrency", concurrency, "serve concurrency levels, e.g. 1,8,64")
      ->check(list_of(integer_check(1, 4096)));
  app.add_option("--requests", o.requests, "counted requests per concurrency level (0: max(8, 4 x C))")
      ->check(integer_check(0));
  app.add_option("--max-tokens", o.max_tokens, "output tokens per request")->check(integer_check(1));
  app.add_option("--prompt-tokens", o.prompt_tokens, "approximate prompt length in tokens")
      ->check(integer_check(1));
  app.add_option("--request-rate", o.request_rate, "Poisson arrivals per second (0: closed loop)")
      ->check(number_check(0, true));
  app.add_option("--percentiles", percentiles,
                 "serve latency percentiles reported as vllm bench serve names them, e.g. 50,90,99")
      ->check(list_of(number_check(0, false, 100.0)));
  app.add_option("--inject-hang", o.inject_hang, "test only: PHASE:TOKENS:OP waits forever at that op")
      ->group("");  // hidden
  app.add_option("--inject-delay", o.inject_delay,
                 "test only: RANK:US makes that rank arrive US microseconds late at every trial")
      ->group("");  // hidden
  app.add_flag(
         "--emulate-ranks", o.emulate_ranks,
         "test only: several nccl ranks per GPU, each presented to NCCL as its own host (NCCL_HOSTID); the "
         "figures then describe sockets and time slicing, not a link")
      ->group("Testing");
  app.add_option("--progress-interval", cli.progress_interval_s, "test only: seconds between progress lines")
      ->check(number_check(0, false))
      ->group("");  // hidden
  bool dry_run = false;
  app.add_flag("--dry-run", dry_run, "print the plan (and write plan.json) without communicating");
  app.add_option("--ranks", cli.dry_run_ranks,
                 "ranks to plan for with --dry-run (default: the launcher's, else 8)")
      ->check(integer_check(1, 65536));

  auto* compare = app.add_subcommand(
      "compare",
      "compare two report.json files: exit 1 on a regression or a missing point, 2 when not comparable");
  compare->add_option("base", cli.compare_base, "baseline report.json")->required();
  compare->add_option("new", cli.compare_new, "new report.json")->required();
  compare
      ->add_option("--threshold", cli.compare_threshold_pct,
                   "p50 change in percent that counts as a regression when beyond the runs' spread too")
      ->check(number_check(0, true));
  compare
      ->add_option(
          "--max-ratio", cli.compare_max_ratio,
          "a figure worse by more than this factor is a regression whatever the spread (default 1.5)")
      ->check(number_check(1, false));
  compare
      ->add_option(
          "--allow-mismatch", allow_mismatch,
          "compare points whose setup differs in these fields (dtype, kind, ranks, transport, in_place, "
          "nccl_register, padded_tokens, bytes, ops_per_step, include_permute, device_only, api, max_tokens, "
          "prompt_tokens, request_rate, "
          "ignore_eos)")
      ->check(list_of(CLI::Validator([](std::string&) { return std::string(); }, "FIELD")));
  compare->add_flag("--allow-missing", cli.compare_allow_missing,
                    "points measured on one side only are listed but do not fail");
  compare->add_option("--format", cli.compare_format, "output: text, csv or json")
      ->check(one_of({"text", "csv", "json"}));

  auto* report = app.add_subcommand(
      "report", "re-render report.md, report.json, CSV and plots from report.json or a journal");
  report->add_option("file", cli.report_input, "report.json or journal.jsonl")->required();
  report->add_option("--serve", cli.report_serve,
                     "a second report whose serve results join the attribution (written to --out, default "
                     "a new folder beside FILE: the inputs are never overwritten)");
  report->add_option("--out", cli.report_out, "output directory (default: beside FILE)");

  CaptureOptions& cap = cli.capture;
  auto* capture = app.add_subcommand(
      "capture", "read NCCL Inspector output of a live program: its collectives, decode step, vs the replay");
  capture->add_option("inputs", cap.inputs, "Inspector dump directories (*.log inside) or files")->required();
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
  bool no_plots = false;
  capture->add_flag("--no-plots", no_plots, "do not run tools/plot-capture");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    cli.command = Command::exit_now;
    const bool asked_for_text = e.get_exit_code() == 0;  // --help, --version
    if (asked_for_text) {
      cli.exit_code = print ? app.exit(e) : 0;
      return cli;
    }
    if (print) fmt::print(stderr, "k25comm: error: {}\nRun with --help for more information.\n", e.what());
    cli.exit_code = static_cast<int>(ExitCode::bad_usage);
    return cli;
  }
  o.tokens = list_values<int>(tokens);
  o.phases = list_values<std::string>(phases);
  o.modes = list_values<std::string>(modes);
  o.concurrency = list_values<int>(concurrency);
  o.percentiles = list_values<double>(percentiles);
  cli.compare_allow_mismatch = list_values<std::string>(allow_mismatch);
  if (compare->parsed()) {
    cli.command = Command::compare;
  } else if (report->parsed()) {
    cli.command = Command::report;
  } else if (capture->parsed()) {
    cli.command = Command::capture;
    cap.plots = !no_plots;
    cap.command_line = cli.text;
  } else {
    cli.command = dry_run ? Command::dry_run : Command::measure;
    if (cli.config_path.empty()) cli.config_path = default_config_path();
    if (cli.config_path.empty()) {
      if (print)
        fmt::print(stderr, "k25comm: error: no --sizes given and no default config found; looked for {}\n",
                   fmt::join(default_config_candidates(), ", "));
      cli.command = Command::exit_now;
      cli.exit_code = static_cast<int>(ExitCode::bad_usage);
    }
  }
  return cli;
}

namespace {

// The value of a flag by its name in the enumeration's one name table (CLI11 checked the choices already).
template <typename E>
E lookup(const std::string& value, const char* flag) {
  if (const auto found = enum_from_name<E>(value)) return *found;
  throw UsageError(fmt::format("{}: unknown value '{}' (known: {})", flag, value, enum_name_list<E>()));
}

}  // namespace

void apply_overrides(const ConfigOverrides& o, RunConfig& c) {
  if (o.out_dir) c.output.dir = *o.out_dir;
  if (!o.tokens.empty()) c.sweep.tokens = o.tokens;
  if (o.iterations) {
    c.sweep.iterations = *o.iterations;
    c.sweep.min_iterations = std::min(c.sweep.min_iterations, c.sweep.iterations);
  }
  if (o.warmup) c.sweep.warmup = *o.warmup;
  if (o.op_iterations) c.sweep.op_iterations = *o.op_iterations;
  if (o.time_budget_s) c.sweep.time_budget_s = *o.time_budget_s;
  if (!o.phases.empty())
    if (const std::string bad = set_phases(c.sweep, o.phases); !bad.empty())
      throw UsageError(fmt::format("--phases: unknown phase '{}'", bad));
  if (!o.modes.empty())
    if (const std::string bad = set_modes(c.sweep, o.modes); !bad.empty())
      throw UsageError(fmt::format("--modes: unknown mode '{}'", bad));
  if (o.backend) c.transport.backend = lookup<Backend>(*o.backend, "--backend");
  if (o.nccl_register) c.transport.nccl_register = lookup<NcclRegister>(*o.nccl_register, "--nccl-register");
  if (o.timeout_s) c.transport.timeout_s = *o.timeout_s;
  if (o.dtype) c.sweep.allreduce_dtype = lookup<Dtype>(*o.dtype, "--dtype");
  if (o.in_place) c.sweep.in_place = true;
  if (o.no_check) c.sweep.check = false;
  if (o.include_permute) c.sweep.include_permute = true;
  if (o.no_trace) c.output.trace = false;
  if (o.device_only) c.sweep.device_only = true;
  if (o.emulate_ranks) c.transport.emulate_ranks = true;
  if (o.inject_delay) c.transport.inject_delay = *o.inject_delay;
  if (o.routing) c.routing.model = lookup<RoutingModel>(*o.routing, "--routing");
  if (o.zipf_s) c.routing.zipf_s = *o.zipf_s;
  if (o.copies) c.routing.copies = lookup<CopyGranularity>(*o.copies, "--copies");
  if (o.seed) c.routing.seed = *o.seed;
  if (o.endpoint) c.serve.endpoint = *o.endpoint;
  if (o.model) c.serve.model = *o.model;
  if (o.api) c.serve.api = lookup<ServeApi>(*o.api, "--api");
  if (o.api_key) c.serve.api_key = *o.api_key;
  if (!o.concurrency.empty()) c.serve.concurrency = o.concurrency;
  if (!o.percentiles.empty()) c.serve.percentiles = o.percentiles;
  if (o.requests) c.serve.requests = *o.requests;
  if (o.max_tokens) c.serve.max_tokens = *o.max_tokens;
  if (o.prompt_tokens) c.serve.prompt_tokens = *o.prompt_tokens;
  if (o.request_rate) c.serve.request_rate = *o.request_rate;
  if (o.inject_hang) c.transport.inject_hang = *o.inject_hang;
  if (o.decode_gap_us) c.sweep.decode.gap_us = *o.decode_gap_us;
  if (o.decode_layer_gap_us) c.sweep.decode.layer_gap_us = *o.decode_layer_gap_us;
  if (o.decode_skew_us) c.sweep.decode.skew_us = *o.decode_skew_us;
  if (o.gaps_from) apply_gaps_from(*o.gaps_from, c);
  validate_config(c);
}

}  // namespace k25
