// CLI11 definition of k25comm's flags and subcommands, and how flags override the YAML config.
#include "app/command_line.hpp"

#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "build_info.hpp"
#include "common/error.hpp"
#include "config/config_loader.hpp"

namespace k25 {

std::string default_config_path() {
  if (std::filesystem::exists("configs/kimi.yaml")) return "configs/kimi.yaml";
#ifdef K25_SOURCE_DIR
  return std::string(K25_SOURCE_DIR) + "/configs/kimi.yaml";
#else
  return "configs/kimi.yaml";
#endif
}

CommandLine parse_command_line(int argc, char** argv, bool print) {
  CommandLine cli;
  for (int i = 0; i < argc; ++i) cli.text += (i ? " " : "") + std::string(argv[i]);
  ConfigOverrides& o = cli.overrides;

  CLI::App app{
      "k25comm: replays the collectives of one MoE decode step on MPI ranks (one per GPU), measures them,\n"
      "measures a serving endpoint's decode latency, and reports what share of a step is communication."};
  app.set_version_flag("--version", fmt::format("k25comm {} ({})", kVersion, git_sha()));
  app.require_subcommand(0, 1);
  app.add_option("--sizes,--config", cli.config_path,
                 "YAML config: model, sweep, routing, serve (default configs/kimi.yaml)");
  app.add_option("--out", o.out_dir, "output directory (journal.jsonl, report.json, report.md, trace.json)");
  app.add_option("--tokens", o.tokens, "token counts to measure, e.g. 1,4,16")
      ->delimiter(',')
      ->check(CLI::Range(1, 65536));
  app.add_option("--iters", o.iterations, "timed trials (whole bursts) per point, at most")
      ->check(CLI::PositiveNumber);
  app.add_option("--warmup", o.warmup, "untimed bursts before each point (at least 1)");
  app.add_option("--op-iters", o.op_iterations,
                 "trials of the per-op timing pass, at most (0: no per-op pass)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--time-budget", o.time_budget_s, "seconds per point after which trials stop")
      ->check(CLI::PositiveNumber);
  app.add_option("--phases", o.phases, "phases to run: allreduce,alltoall,serve")
      ->delimiter(',')
      ->check(CLI::IsMember({"allreduce", "alltoall", "serve"}));
  app.add_option("--modes", o.modes, "timing modes: eager,graph (graph needs the nccl transport)")
      ->delimiter(',')
      ->check(CLI::IsMember({"eager", "graph"}));
  app.add_option("--backend", o.backend, "transport: auto, nccl or mpi")
      ->check(CLI::IsMember({"auto", "nccl", "mpi"}));
  app.add_option("--timeout", o.timeout_s, "seconds a collective may take before the run aborts (exit 3)")
      ->check(CLI::PositiveNumber);
  app.add_option("--dtype", o.dtype, "AllReduce element type: bf16 or fp32")
      ->check(CLI::IsMember({"bf16", "fp32"}));
  app.add_flag("--in-place", o.in_place, "AllReduce in place (default out of place)");
  app.add_flag("--no-check", o.no_check, "skip the correctness pass");
  app.add_flag("--include-permute", o.include_permute,
               "nccl: count MoE pack/unpack kernels in the All-to-All step");
  app.add_flag("--no-trace", o.no_trace, "do not write trace.json");
  app.add_flag(
      "--device-only", o.device_only,
      "nccl: hold the stream until a burst is enqueued, so the step excludes the host's launch cost");
  app.add_option("--routing", o.routing, "routing model: uniform or zipf")
      ->check(CLI::IsMember({"uniform", "zipf"}));
  app.add_option("--zipf-s", o.zipf_s, "Zipf exponent over experts")->check(CLI::Range(0.0, 10.0));
  app.add_option("--copies", o.copies, "All-to-All copies: per_rank (normal) or per_expert (low-latency)")
      ->check(CLI::IsMember({"per_rank", "per_expert"}));
  app.add_option("--seed", o.seed, "routing seed");
  app.add_option("--endpoint", o.endpoint, "serving endpoint base URL, e.g. http://127.0.0.1:8000");
  app.add_option("--model", o.model, "model name sent to the endpoint");
  app.add_option("--api", o.api, "chat or completions")->check(CLI::IsMember({"chat", "completions"}));
  app.add_option("--api-key", o.api_key, "bearer token for the endpoint");
  app.add_option("--concurrency", o.concurrency, "serve concurrency levels, e.g. 1,8,64")
      ->delimiter(',')
      ->check(CLI::Range(1, 4096));
  app.add_option("--requests", o.requests, "counted requests per concurrency level")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-tokens", o.max_tokens, "output tokens per request")->check(CLI::PositiveNumber);
  app.add_option("--prompt-tokens", o.prompt_tokens, "approximate prompt length in tokens")
      ->check(CLI::PositiveNumber);
  app.add_option("--request-rate", o.request_rate, "Poisson arrivals per second (0: closed loop)")
      ->check(CLI::NonNegativeNumber);
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
  bool dry_run = false;
  app.add_flag("--dry-run", dry_run, "print the plan (and write plan.json) without communicating");
  app.add_option("--ranks", cli.dry_run_ranks,
                 "ranks to plan for with --dry-run (default: the launcher's, else 8)")
      ->check(CLI::Range(1, 65536));

  auto* compare = app.add_subcommand("compare", "compare two report.json files; exit 1 on a regression");
  compare->add_option("base", cli.compare_base, "baseline report.json")->required();
  compare->add_option("new", cli.compare_new, "new report.json")->required();
  compare
      ->add_option("--threshold", cli.compare_threshold_pct,
                   "p50 change in percent that counts as a regression")
      ->check(CLI::PositiveNumber);

  auto* report = app.add_subcommand(
      "report", "re-render report.md, report.json and plots from report.json or a journal");
  report->add_option("file", cli.report_input, "report.json or journal.jsonl")->required();
  report->add_option("--serve", cli.report_serve, "a second report whose serve results join the attribution");
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
    if (print) {
      cli.exit_code = app.exit(e);
    } else {
      cli.exit_code = e.get_exit_code();
    }
    if (cli.exit_code != 0) cli.exit_code = static_cast<int>(ExitCode::bad_usage);
    return cli;
  }
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
  }
  return cli;
}

namespace {

template <typename E>
E lookup(const std::map<std::string, E>& names, const std::string& value, const char* flag) {
  const auto found = names.find(value);
  if (found == names.end()) throw UsageError(fmt::format("{}: unknown value '{}'", flag, value));
  return found->second;
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
  if (!o.phases.empty()) {
    c.sweep.run_allreduce = c.sweep.run_alltoall = c.sweep.run_serve = false;
    for (const auto& phase : o.phases) {
      if (phase == "allreduce") c.sweep.run_allreduce = true;
      if (phase == "alltoall") c.sweep.run_alltoall = true;
      if (phase == "serve") c.sweep.run_serve = true;
    }
  }
  if (!o.modes.empty()) {
    c.sweep.modes.clear();
    for (const auto& mode : o.modes)
      c.sweep.modes.push_back(mode == "graph" ? TimingMode::graph : TimingMode::eager);
  }
  if (o.backend)
    c.transport.backend =
        lookup<Backend>({{"auto", Backend::automatic}, {"nccl", Backend::nccl}, {"mpi", Backend::mpi}},
                        *o.backend, "--backend");
  if (o.timeout_s) c.transport.timeout_s = *o.timeout_s;
  if (o.dtype)
    c.sweep.allreduce_dtype =
        lookup<Dtype>({{"bf16", Dtype::bf16}, {"fp32", Dtype::fp32}}, *o.dtype, "--dtype");
  if (o.in_place) c.sweep.in_place = true;
  if (o.no_check) c.sweep.check = false;
  if (o.include_permute) c.sweep.include_permute = true;
  if (o.no_trace) c.output.trace = false;
  if (o.device_only) c.sweep.device_only = true;
  if (o.emulate_ranks) c.transport.emulate_ranks = true;
  if (o.inject_delay) c.transport.inject_delay = *o.inject_delay;
  if (o.routing)
    c.routing.model = lookup<RoutingModel>({{"uniform", RoutingModel::uniform}, {"zipf", RoutingModel::zipf}},
                                           *o.routing, "--routing");
  if (o.zipf_s) c.routing.zipf_s = *o.zipf_s;
  if (o.copies)
    c.routing.copies = lookup<CopyGranularity>(
        {{"per_rank", CopyGranularity::per_rank}, {"per_expert", CopyGranularity::per_expert}}, *o.copies,
        "--copies");
  if (o.seed) c.routing.seed = *o.seed;
  if (o.endpoint) c.serve.endpoint = *o.endpoint;
  if (o.model) c.serve.model = *o.model;
  if (o.api)
    c.serve.api =
        lookup<ServeApi>({{"chat", ServeApi::chat}, {"completions", ServeApi::completions}}, *o.api, "--api");
  if (o.api_key) c.serve.api_key = *o.api_key;
  if (!o.concurrency.empty()) c.serve.concurrency = o.concurrency;
  if (o.requests) c.serve.requests = *o.requests;
  if (o.max_tokens) c.serve.max_tokens = *o.max_tokens;
  if (o.prompt_tokens) c.serve.prompt_tokens = *o.prompt_tokens;
  if (o.request_rate) c.serve.request_rate = *o.request_rate;
  if (o.inject_hang) c.transport.inject_hang = *o.inject_hang;
  validate_config(c);
}

}  // namespace k25
