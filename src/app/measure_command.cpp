// Orchestrates config -> plan -> transport -> measure -> gather -> analysis -> report for one run, as a short
// sequence of named steps: open the outputs, place the run, plan the sweep, begin the report, measure the
// sweep, serve, write.
#include "app/measure_command.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/analyze.hpp"
#include "analysis/chrome_trace.hpp"
#include "analysis/headline.hpp"
#include "analysis/join_cost.hpp"
#include "analysis/journal_records.hpp"
#include "analysis/point_result.hpp"
#include "analysis/report_notes.hpp"
#include "analysis/run_report.hpp"
#include "app/registration_option.hpp"
#include "app/run_facts.hpp"
#include "build_info.hpp"
#include "common/count_noun.hpp"
#include "common/interrupt.hpp"
#include "common/redaction.hpp"
#include "config/config_keys.hpp"
#include "config/config_loader.hpp"
#include "gather/coordinator_step.hpp"
#include "gather/gathered_point.hpp"
#include "live_profile/live_profile.hpp"
#include "measure/measure_point.hpp"
#include "plan/decode_gaps.hpp"
#include "plan/graph_padding.hpp"
#include "plan/hang_spec.hpp"
#include "plan/rank_ops.hpp"
#include "report/atomic_file.hpp"
#include "report/console_table.hpp"
#include "report/journal.hpp"
#include "report/live_step_markdown.hpp"
#include "report/markdown_report.hpp"
#include "report/report_files.hpp"
#include "serve/serve_phase.hpp"
#include "topology/topology_label.hpp"
#include "topology/topology_probe.hpp"
#include "transport/allreduce_contenders.hpp"
#include "transport/make_transport.hpp"
#include "transport/peer_allreduce.hpp"
#include "transport/registration_check.hpp"

namespace k25 {
namespace {

constexpr std::size_t kMaxTracedPoints =
    64;  // trace.json holds the representative trials of the first 64 points

bool communication_asked(const RunConfig& config) {
  return config.sweep.run_allreduce || config.sweep.run_alltoall;
}

bool serve_asked(const RunConfig& config) {
  return config.sweep.run_serve && !config.serve.endpoint.empty();
}

// A run that would measure nothing it was asked for is bad usage: the serve phase alone without an endpoint.
void check_something_is_asked(const RunConfig& config) {
  if (!communication_asked(config) && config.sweep.run_serve && config.serve.endpoint.empty())
    throw UsageError(
        "--phases serve: the serve phase is the only one asked and no endpoint is configured, so nothing would be measured; give --endpoint URL (or serve.endpoint in the config), or add allreduce/alltoall to --phases");
}

// Device-only timing holds the stream while a burst is enqueued: the transport must have a stream, and the
// burst must fit in the launch queue behind the hold (checked on every rank alike, before anything runs).
void check_device_only(const std::vector<OpBurst>& bursts, const Transport& transport) {
  const std::size_t limit = transport.max_held_launches();
  if (limit == 0)
    throw UsageError(fmt::format(
        "--device-only needs a GPU stream to hold; the {} transport has none (use --backend nccl, or leave --device-only off)",
        transport.name()));
  for (const OpBurst& burst : bursts) {
    std::size_t launches = 0;
    for (const CollectiveOp& op : burst.ops)
      launches += 1 + (op.gather_before ? 1 : 0) + (op.sum_after ? 1 : 0) + (op.stall_before ? 1 : 0);
    if (launches > limit)
      throw UsageError(fmt::format(
          "--device-only: the {} burst has {} kernel launches, more than the {} that can wait behind a held stream; leave --device-only off for this config",
          burst.what, launches, limit));
  }
}

// Everything only the coordinator holds while the run goes on.
struct CoordinatorState {
  RunReport report;
  std::unique_ptr<Journal> journal;
  std::vector<TrialTimeline> timelines;
  ConsoleTable table{stdout};
  ProgressLine progress;                         // on a terminal
  PeriodicProgress sweep_progress{stdout, 5.0};  // "# sweep: 3/18 done, ..., ETA ..." lines, anywhere
  std::vector<std::string> profile_lines;        // said as the profiled serve phase starts
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// ---- open the outputs -------------------------------------------------------------------------------------

// The output directory and journal first, and the endpoint when it is required: fail before measuring
// anything. Collective; the state exists on the coordinator only.
std::unique_ptr<CoordinatorState> open_outputs(const RunConfig& config, const RankContext& context) {
  std::unique_ptr<CoordinatorState> state;
  run_on_coordinator(context, [&] {
    state = std::make_unique<CoordinatorState>();
    ensure_writable_directory(config.output.dir);
    // An unreachable endpoint stops the run before it leaves anything (no empty journal).
    if (serve_asked(config)) check_endpoint_reachable(config.serve);
    if (serve_asked(config) && config.serve.profile.any())
      state->profile_lines = profile_folder_lines(config.serve);
    // Reports of an earlier run in this directory would describe another journal: a run that fails must not
    // leave them looking like its own.
    for (const std::string& stale : report_file_names())
      std::filesystem::remove(config.output.dir + "/" + stale);
    state->journal = std::make_unique<Journal>(config.output.dir + "/journal.jsonl");
  });
  return state;
}

// ---- place the run ----------------------------------------------------------------------------------------

// Where the run happens: this rank's transport, the topology it found, the hosts and their cores.
struct Placement {
  ChosenTransport chosen;
  TopologyInfo topology;
  std::vector<std::string> hosts;  // one per rank
  std::map<std::string, int> host_cores;
  // The AllReduce burst's backends (--allreduce-backends), the transport's own among them where named.
  std::vector<AllreduceContender> contenders;
  Transport& transport() const { return *chosen.transport; }
};

// Collective.
Placement place_run(const RunConfig& config, const RankContext& context, const NcclBackend& nccl) {
  Placement placement{make_transport(config, context, nccl), {}, context.hosts(), {}, {}};
  const Transport& transport = placement.transport();
  placement.topology = probe_topology(context, transport.device(), nccl);
  if (config.transport.emulate_ranks && transport.device() >= 0)
    label_emulated(placement.topology, context.size());
  check_registration(config, context, placement.topology);  // before allocate(), which registers the buffers
  placement.host_cores = gather_host_cores(context, placement.hosts);
  if (config.sweep.run_allreduce)
    placement.contenders = make_allreduce_contenders(config, placement.transport(), context, nccl);
  return placement;
}

// ---- plan the sweep ---------------------------------------------------------------------------------------

// What the sweep measures, the same on every rank.
struct SweepPlan {
  std::vector<TimingMode> modes;        // the modes asked that the transport can time
  std::vector<MeasuredCount> schedule;  // token counts to measure, each with the modes and counts asked of it
  std::vector<DecodeStepPlan> plans;    // one per measured count
  RankOpOptions op_options;
  std::optional<HangSpec> injected_hang;  // --inject-hang, for whichever AllReduce backend it names
  std::vector<OpBurst> bursts;            // what this rank issues, plan by plan, phase by phase
  int total_points = 0;
};

SweepPlan plan_sweep(const RunConfig& config, const RankContext& context, const Transport& transport) {
  SweepPlan sweep;
  for (TimingMode mode : config.sweep.modes)
    if (mode != TimingMode::graph || transport.supports_graph()) sweep.modes.push_back(mode);
  // Every rank knows the transport's answer: a run that would measure none of its modes stops on all of them.
  if (communication_asked(config) && sweep.modes.empty())
    throw UsageError(fmt::format(
        "--modes graph: the {} transport has no graph mode (CUDA graphs need --backend nccl on GPUs), so nothing would be measured; add eager (--modes eager,graph) or run on the nccl transport",
        transport.name()));
  // Graph mode pads a count to the next capture size; counts that pad alike are measured once.
  sweep.schedule = measured_counts(config.sweep.tokens, sweep.modes, config.sweep.graph_sizes);
  // Plans are pure data: every rank derives the same ones, one per measured token count.
  for (const MeasuredCount& count : sweep.schedule)
    sweep.plans.push_back(
        plan_decode_step(config.model, config.routing, config.sweep, count.tokens, context.size()));
  // What this rank issues for each phase of each plan: op descriptors, without the model.
  sweep.op_options = {config.sweep.include_permute,
                      parse_hang_spec(config.transport.inject_hang),
                      {},
                      config.sweep.allreduce_epilogue};
  sweep.injected_hang = sweep.op_options.hang;
  // A hang injected into another AllReduce backend's burst is not the transport's own.
  if (sweep.op_options.hang && !sweep.op_options.hang->applies_to(own_backend(transport)))
    sweep.op_options.hang.reset();
  for (const auto& plan : sweep.plans)
    for (const auto& phase : plan.phases)
      sweep.bursts.push_back(burst_for_rank(phase, context.rank(), sweep.op_options));
  if (config.sweep.device_only) check_device_only(sweep.bursts, transport);
  for (std::size_t i = 0; i < sweep.plans.size(); ++i)
    sweep.total_points += static_cast<int>(sweep.plans[i].phases.size() * sweep.schedule[i].modes.size());
  return sweep;
}

std::string plan_summary(const SweepPlan& plan, const SweepSpec& sweep) {
  std::string summary = fmt::format(
      "sweep: {} ({} x {} x {} mode{}), each at most {} trials or {:g} s",
      count_noun(plan.total_points, "point"),
      count_noun(static_cast<long long>(sweep.tokens.size()), "token count"),
      count_noun(plan.plans.empty() ? 0 : static_cast<long long>(plan.plans.front().phases.size()), "phase"),
      plan.modes.size(), plan.modes.size() == 1 ? "" : "s", sweep.iterations, sweep.time_budget_s);
  if (const std::string padding = describe_graph_padding(plan.schedule, sweep.graph_sizes); !padding.empty())
    summary += "; graph mode pads token counts to capture sizes (sweep.graph_sizes): " + padding;
  return summary;
}

// ---- begin the report -------------------------------------------------------------------------------------

// What the AllReduce backends, the epilogue and the test hooks on them make of the figures.
std::vector<std::string> backend_notes(const RunConfig& config,
                                       const std::vector<AllreduceContender>& contenders) {
  std::vector<std::string> notes;
  if (contenders.size() > 1 || (contenders.size() == 1 && !contenders.front().own)) {
    std::vector<std::string> names;
    for (const AllreduceContender& c : contenders) names.push_back(c.name());
    notes.push_back(fmt::format(
        "AllReduce backends: {}: every AllReduce point replayed by each, in interleaved rounds (one trial of each in turn, each after its own barrier), same sizes, dtype, seeds and trials; each checked exactly over a whole burst (docs/allreduce-backends.md)",
        fmt::join(names, ", ")));
  }
  for (const AllreduceContender& c : contenders)
    if (!c.unavailable.empty()) notes.push_back(fmt::format("{} not run: {}", c.name(), c.unavailable));
  if (config.sweep.allreduce_epilogue == AllreduceEpilogue::add_rmsnorm && config.sweep.run_allreduce)
    notes.push_back(
        "--allreduce-epilogue add-rmsnorm: every AllReduce is followed by the residual add and RMSNorm of its token rows (nccl and mpi: a separate step after the collective; the peer backends: fused), inside the timed op");
  if (!config.transport.inject_wrong.empty())
    notes.push_back(fmt::format(
        "test mode: --inject-wrong {} made that backend leave each rank's own input out of its sum",
        config.transport.inject_wrong));
  return notes;
}

// The caveats known before measuring: what the transport, the flags and the phases asked make of the figures.
std::vector<std::string> run_notes(const RunConfig& config, const RankContext& context,
                                   const Placement& placement, const SweepPlan& sweep) {
  const Transport& transport = placement.transport();
  std::vector<std::string> notes;
  if (const std::string caveat = transport.caveat(context.size()); !caveat.empty()) notes.push_back(caveat);
  if (context.size() == 1 && placement.topology.kind == "host" && communication_asked(config))
    notes.push_back(
        "one rank: the host transport communicates nothing (a collective of one rank copies at most within the process), so these times and bandwidths are the MPI library's call overhead, not a link's; run two or more ranks");
  if (const std::string note =
          registration_note(config.transport.nccl_register, context.size(), config.transport.emulate_ranks);
      !note.empty())
    notes.push_back(note);
  for (const std::string& note : backend_notes(config, placement.contenders)) notes.push_back(note);
  if (config.sweep.include_permute && config.sweep.run_alltoall)
    notes.push_back(
        "--include-permute: All-to-All times include the MoE dispatch pack and combine unpack around each exchange");
  if (!config.transport.inject_delay.empty())
    notes.push_back(fmt::format("test mode: --inject-delay {} made one rank arrive late at every trial",
                                config.transport.inject_delay));
  if (config.sweep.device_only)
    notes.push_back(
        "device-only timing: each trial's stream was held by a blocking kernel until the whole burst was enqueued, so step times exclude the host's launch cost (a serving engine pays it in eager mode)");
  if (std::count(sweep.modes.begin(), sweep.modes.end(), TimingMode::decode) > 0) {
    const DecodeGapSpec& gaps = config.sweep.decode;
    notes.push_back(fmt::format(
        "decode mode: before each op a compute gap of {:g} us, plus {:g} us per decoder layer split over its ops, plus a seeded skew of up to {:g} us per rank and op (seed {}); {}. "
        "Step = gaps + communication; comm = step minus the rank's measured gaps",
        gaps.gap_us, gaps.layer_gap_us, gaps.skew_us, gaps.seed,
        transport.completes_on_launch() ? "the host transport busy-waits for each gap"
                                        : "each gap is a GPU busy kernel on the op stream"));
    if (!gaps.gaps_from.empty()) notes.push_back(gaps.gaps_from);
  }
  if (communication_asked(config) && !transport.supports_graph() &&
      std::count(config.sweep.modes.begin(), config.sweep.modes.end(), TimingMode::graph) > 0)
    notes.push_back("graph mode needs the nccl transport (CUDA graphs); only eager mode was measured");
  if (!config.sweep.run_serve && !config.serve.endpoint.empty())
    notes.push_back(fmt::format(
        "the endpoint {} is not used: --phases {} has no serve (add serve to --phases to measure it)",
        redact_url(config.serve.endpoint), fmt::join(phase_names(config.sweep), ",")));
  return notes;
}

// The report's header (tool, run, topology, the notes known before measuring), journaled as run_start and
// printed on the console.
void begin_report(CoordinatorState& state, const RunConfig& config, const CommandLine& cli,
                  const RankContext& context, const Placement& placement, const SweepPlan& sweep,
                  const std::string& started_at) {
  const Transport& transport = placement.transport();
  RunReport& report = state.report;
  report.tool = {"k25comm", kVersion, git_sha()};
  RunInfo& run = report.run;
  run.started_at = started_at;
  run.ranks = context.size();
  run.hosts = placement.hosts;
  run.transport = transport.name();
  run.transport_reason = placement.chosen.reason;
  run.clock = transport.clock_description();
  run.config_path = config.config_path;
  run.config = config_to_json(config);
  run.command_line = cli.text;
  run.env = launcher_environment();
  run.mpi_version = mpi_library_version();
  run.compiler = kCompiler;
  run.host_cores = placement.host_cores;
  run.notes = run_notes(config, context, placement, sweep);
  if (config.sweep.run_serve && config.serve.endpoint.empty())
    report.serve.skipped_reason = "no endpoint configured (serve.endpoint or --endpoint)";
  report.topology = placement.topology;
  // What is known before measuring (a skipped serve phase, oversubscribed hosts), in run_start as well.
  refresh_derived_notes(report, {});
  state.journal->append(run_start_record(report));

  const ConsoleTable& table = state.table;
  table.print_note(fmt::format("k25comm {} ({}) | {} | {} on {} | transport {}", kVersion, git_sha(),
                               config.model.name, count_noun(context.size(), "rank"),
                               count_noun(context.host_count(), "host"), placement.chosen.reason));
  table.print_note(fmt::format("topology {} {} | clock: {}", placement.topology.kind,
                               placement.topology.link_description, run.clock));
  for (const auto& note : run.notes) table.print_note("note: " + note);
  table.print_note(
      "times: max over ranks per trial; op = one collective, step = the whole burst of one decode step");
  if (communication_asked(config))
    table.print_header(!describe_graph_padding(sweep.schedule, config.sweep.graph_sizes).empty());
  if (sweep.total_points > 0) table.print_note(plan_summary(sweep, config.sweep));
}

// ---- measure the sweep ------------------------------------------------------------------------------------

struct SweepOutcome {
  bool interrupted = false;  // a signal stopped the sweep at a point boundary
  std::uint64_t wrong = 0;   // wrong elements over every result (coordinator)
};

// Who measured a point: the backend's name, and whether it is the transport's own (the run's default rows).
struct PointBackend {
  std::string name;
  bool own = true;
};

// The coordinator's share of one gathered point: its results (one per token count asked of it) into the
// report, the journal and the console, with the notes it calls for, and (the transport's own) its trace
// timeline.
void record_point(CoordinatorState& state, const PhasePlan& phase, const ModeRequests& measured,
                  const GatheredPoint& point, const TimingFacts& timing,
                  const std::vector<std::string>& hosts, const PointBackend& backend, SweepOutcome& outcome) {
  state.progress.clear();
  PhaseResult result = make_phase_result(phase, measured.mode, point, timing);
  result.backend = backend.name;
  outcome.wrong += result.wrong;
  std::vector<PhaseResult>& filed = backend.own ? state.report.results : state.report.backend_results;
  for (const GraphPadding& request : measured.requests) {
    const PhaseResult reported = result_for_request(result, request);
    filed.push_back(reported);
    state.journal->append(result_record(reported));
    state.table.print_row(reported);
  }
  if (result.decode) {
    PhaseResult with_join_cost = result;
    std::vector<PhaseResult> same_backend;
    for (const PhaseResult& r : filed)
      if (r.backend == backend.name) same_backend.push_back(r);
    fill_join_cost(with_join_cost, same_backend);
    state.table.print_note(decode_note(with_join_cost));
  }
  if (result.launch_bound)
    state.table.print_note(
        fmt::format("launch-bound: the host took {:.1f} us of the {:.1f} us step (p50) to enqueue the burst; "
                    "graph mode or --device-only shows what the GPUs take",
                    result.launch_us->p50, result.step_us.p50));
  if (backend.own && state.timelines.size() < kMaxTracedPoints)
    state.timelines.push_back(make_trial_timeline(phase, measured.mode, hosts, point, timing));
}

// The row of a backend that could not run a point, and its console line.
void record_not_run(CoordinatorState& state, const PhasePlan& phase, const ModeRequests& measured,
                    const std::string& backend, const std::string& why) {
  state.progress.clear();
  const PhaseResult result = not_run_result(phase, measured.mode, backend, why);
  for (const GraphPadding& request : measured.requests) {
    const PhaseResult reported = result_for_request(result, request);
    state.report.backend_results.push_back(reported);
    state.journal->append(result_record(reported));
  }
  state.table.print_note(fmt::format("{} at {} tokens, {}: {} not run: {}", to_string(phase.phase),
                                     phase.tokens, to_string(measured.mode), backend, why));
}

// What the coordinator writes besides the reports: trace.json, made only during a run.
std::vector<ExtraFile> run_extra_files(const RunConfig& config, const CoordinatorState& state) {
  if (!config.output.trace || state.timelines.empty()) return {};
  return {{kTraceFileName, chrome_trace(state.timelines).dump() + "\n"}};
}

// Writes the journal's run_end (the measuring is over: a file that cannot be written later leaves a journal
// that says whether every point and level finished), then report.json and report.md, then trace.json, the
// CSV files and the plots (not when the run is being stopped: mpirun's SIGKILL follows its SIGTERM within
// seconds); lists every file written. A file that cannot be written fails the run (RuntimeFault) with what
// was written and how to rebuild the rest from the journal, which holds every point.
void write_outputs(const RunConfig& config, CoordinatorState& state, bool with_plots) {
  RunReport& report = state.report;
  report.run.finished_at = utc_now_iso8601();
  analyze_report(report);
  const std::string journal = state.journal->path();
  state.journal->append(run_end_record(report.run));
  WrittenFiles files;
  try {
    files = write_report_files(report, config.output.dir, with_plots, {}, run_extra_files(config, state));
  } catch (const ReportWriteFault& fault) {
    throw RuntimeFault(fmt::format(
        "{}; {}nothing measured is lost: {} holds every point, and `k25comm report {}` rebuilds report.json, report.md, the CSV files and the plots once there is room",
        fault.message(), fault.reports_written() ? "report.json and report.md were written; " : "", journal,
        journal));
  }
  std::istringstream plot_lines(files.plot_message);
  for (std::string line; std::getline(plot_lines, line);)
    if (!line.empty()) state.table.print_note(line);
  state.table.print_note("wrote " + journal);
  for (const std::string& path : files.paths) state.table.print_note("wrote " + path);
}

// The largest buffers of the run's AllReduce bursts: what the peer backends' buffers must hold.
BufferSizes allreduce_buffers(const SweepPlan& sweep, int ranks) {
  std::vector<OpBurst> allreduce;
  std::size_t next = 0;
  for (const DecodeStepPlan& plan : sweep.plans)
    for (const PhasePlan& phase : plan.phases) {
      if (phase.phase == Phase::allreduce) allreduce.push_back(sweep.bursts[next]);
      ++next;
    }
  return largest_buffers(allreduce, ranks);
}

// One AllReduce backend's bursts of one phase on its transport, or why it cannot run them.
struct ContenderBursts {
  BurstId burst = 0;
  std::optional<BurstId> decode_burst;
  std::string not_run;
};

// Prepares the phase's burst (with the decode gaps, `gaps_us` non-empty) on a backend; a peer backend that
// refuses an op (its buffers are smaller) gives its reason instead. The burst is built for that backend, so
// that a hang injected into another backend's is not in it. Every rank takes the same path.
std::optional<BurstId> prepare_for(const AllreduceContender& contender, const PhasePlan& phase,
                                   const SweepPlan& sweep, const RankContext& context,
                                   std::vector<double> gaps_us, std::string& not_run) {
  RankOpOptions options = sweep.op_options;
  options.hang.reset();
  if (sweep.injected_hang && sweep.injected_hang->applies_to(contender.backend))
    options.hang = sweep.injected_hang;
  options.gaps_us = std::move(gaps_us);
  try {
    return contender.transport->prepare(burst_for_rank(phase, context.rank(), options));
  } catch (const BackendRefused& refused) {
    not_run = refused.message();
    return std::nullopt;
  }
}

// Collective: every point of the sweep on every rank, gathered on the coordinator (`state`, null elsewhere).
// The AllReduce phase is replayed by every backend of the run (measure_contenders), the others by the
// transport alone.
SweepOutcome measure_sweep(const RunConfig& config, const CommandLine& cli, const RankContext& context,
                           const Placement& placement, const SweepPlan& sweep, CoordinatorState* state) {
  Transport& transport = placement.transport();
  transport.allocate(largest_buffers(sweep.bursts, context.size()));
  if (std::any_of(placement.contenders.begin(), placement.contenders.end(),
                  [](const AllreduceContender& c) { return c.owned && c.unavailable.empty(); })) {
    const BufferSizes sizes = allreduce_buffers(sweep, context.size());
    for (const AllreduceContender& contender : placement.contenders)
      if (contender.owned && contender.unavailable.empty()) contender.owned->allocate(sizes);
  }
  const TimingFacts timing{transport.completes_on_launch(), config.sweep.device_only, config.sweep.decode};
  SweepOutcome outcome;
  int done_points = 0;
  const auto started = std::chrono::steady_clock::now();
  if (state) state->sweep_progress = PeriodicProgress(stdout, cli.progress_interval_s);
  const auto show_progress = [&](const PhasePlan& phase, TimingMode mode) {
    if (state)
      state->progress.show(
          done_points, sweep.total_points,
          fmt::format("{} tokens={} {}", to_string(phase.phase), phase.tokens, to_string(mode)));
  };
  const auto point_done = [&] {
    ++done_points;
    if (state)
      state->sweep_progress.update("sweep", done_points, 0, sweep.total_points, seconds_since(started));
  };
  try {
    std::size_t next_burst = 0;
    for (std::size_t plan_index = 0; plan_index < sweep.plans.size() && !outcome.interrupted; ++plan_index) {
      for (const auto& phase : sweep.plans[plan_index].phases) {
        const OpBurst& own_burst = sweep.bursts[next_burst++];
        const bool by_backends = phase.phase == Phase::allreduce && !placement.contenders.empty();
        if (!by_backends) {
          const BurstId burst = transport.prepare(own_burst);
          std::optional<BurstId>
              decode_burst;  // the same ops with this rank's gaps, prepared when first needed
          for (const ModeRequests& measured : sweep.schedule[plan_index].modes) {
            const TimingMode mode = measured.mode;
            if (mode == TimingMode::decode && !decode_burst) {
              RankOpOptions with_gaps = sweep.op_options;
              with_gaps.gaps_us = decode_gaps_us(phase, context.rank(), config.sweep.decode);
              decode_burst = transport.prepare(burst_for_rank(phase, context.rank(), with_gaps));
            }
            show_progress(phase, mode);
            const PointSamples samples =
                measure_point(transport, phase, mode == TimingMode::decode ? *decode_burst : burst, mode,
                              config.sweep, context);
            const GatheredPoint point = gather_point(samples, context);
            if (point.interrupted) {
              outcome.interrupted = true;
              break;
            }
            point_done();
            if (state)
              record_point(*state, phase, measured, point, timing, placement.hosts, {transport.name(), true},
                           outcome);
          }
          if (outcome.interrupted) break;
          continue;
        }
        // Every backend of the AllReduce burst, interleaved.
        const std::vector<AllreduceContender>& contenders = placement.contenders;
        std::vector<ContenderBursts> bursts(contenders.size());
        for (std::size_t c = 0; c < contenders.size(); ++c) {
          const AllreduceContender& contender = contenders[c];
          bursts[c].not_run = contender.unavailable;
          if (!bursts[c].not_run.empty()) continue;
          if (contender.own) {
            bursts[c].burst = transport.prepare(own_burst);
          } else if (const auto prepared =
                         prepare_for(contender, phase, sweep, context, {}, bursts[c].not_run)) {
            bursts[c].burst = *prepared;
          }
        }
        for (const ModeRequests& measured : sweep.schedule[plan_index].modes) {
          const TimingMode mode = measured.mode;
          std::vector<PointContender> runnable;
          std::vector<std::size_t> runnable_index;
          for (std::size_t c = 0; c < contenders.size(); ++c) {
            ContenderBursts& prepared = bursts[c];
            if (!prepared.not_run.empty()) continue;
            if (mode == TimingMode::decode && !prepared.decode_burst)
              prepared.decode_burst =
                  prepare_for(contenders[c], phase, sweep, context,
                              decode_gaps_us(phase, context.rank(), config.sweep.decode), prepared.not_run);
            if (!prepared.not_run.empty()) continue;
            runnable.push_back({contenders[c].transport,
                                mode == TimingMode::decode ? *prepared.decode_burst : prepared.burst});
            runnable_index.push_back(c);
          }
          show_progress(phase, mode);
          const std::vector<PointSamples> samples =
              runnable.empty() ? std::vector<PointSamples>{}
                               : measure_contenders(runnable, phase, mode, config.sweep, context);
          std::vector<std::optional<GatheredPoint>> gathered(contenders.size());
          for (std::size_t i = 0; i < runnable.size(); ++i)
            gathered[runnable_index[i]] = gather_point(samples[i], context);
          if (!runnable.empty() && gathered[runnable_index.front()]->interrupted) {
            outcome.interrupted = true;
            break;
          }
          point_done();
          if (!state) continue;
          for (std::size_t c = 0; c < contenders.size(); ++c) {
            if (gathered[c])
              record_point(*state, phase, measured, *gathered[c], timing, placement.hosts,
                           {contenders[c].name(), contenders[c].own}, outcome);
            else
              record_not_run(*state, phase, measured, contenders[c].name(), bursts[c].not_run);
          }
        }
        if (outcome.interrupted) break;
      }
    }
  } catch (const PointAbandoned&) {
    // Coordinator only, stopped between two ops: peers may wait in a collective, so no further collective
    // runs. Write what was gathered now, before mpirun's SIGKILL; main() then ends the job with MPI_Abort.
    const std::string reason = interruption_reason(interrupt_signal());
    state->progress.clear();
    state->report.run.complete = false;
    state->report.run.incomplete_reason = reason;
    write_outputs(config, *state, /*with_plots=*/false);
    state->table.print_note("incomplete: " + reason);
    throw Error(ExitCode::interrupted, reason);
  } catch (const BackendHang& hang) {
    // A backend whose ranks did not all arrive: every backend measured before it is kept in report.json and
    // report.md (the coordinator writes them now), then the run ends with exit 3 naming it.
    if (state) {
      state->progress.clear();
      state->report.run.complete = false;
      state->report.run.incomplete_reason = hang.message();
      write_outputs(config, *state, /*with_plots=*/false);
      state->table.print_note("incomplete: " + hang.message());
    }
    throw;
  }
  return outcome;
}

// ---- serve ------------------------------------------------------------------------------------------------

// Collective: only the coordinator talks HTTP; the others wait without spinning. Each profile window's files
// are read as it ends, before the next level starts (docs/live-profile.md), each level's live step journaled
// and printed as it is known, and its note (a file missing, a folder not seen from here) in the run's notes.
void serve(const RunConfig& config, const CommandLine& cli, const RankContext& context,
           CoordinatorState* state) {
  run_on_coordinator(context, [&] {
    bool serve_started = false;
    PeriodicProgress progress(stdout, cli.progress_interval_s);
    LiveProfileReader live(config, [&](const LiveStepLevel& level) {
      state->journal->append(live_step_record(level));
      state->table.print_note(live_step_line(level));
    });
    state->report.serve = run_serve_phase(
        config.serve,
        [&](const ServeReport& header, const ServeLevel& level) {
          if (!serve_started) {
            state->journal->append(serve_start_record(header));
            serve_started = true;
          }
          state->journal->append(serve_level_record(level));
          state->table.print_note(serve_level_line(level, config.serve.percentiles));
        },
        [&](const LevelProgress& level) {
          progress.update(fmt::format("serve C={}", level.concurrency), level.finished, level.failed,
                          level.total, level.elapsed_s);
        },
        [&](const ProfileWindow& window) {
          state->journal->append(profile_window_record(window));
          state->table.print_note(profile_window_line(window));
          if (!window.message.empty()) add_note(state->report.run, window.message);
          live.window_ended(window);
        },
        [&](const ServeProfile& profile) {
          std::vector<std::string> lines = state->profile_lines;
          if (!profile.engine_conflict.empty()) lines.push_back("profile: " + profile.engine_conflict);
          for (const std::string& line : lines) {
            state->table.print_note(line);
            add_note(state->report.run, line);
          }
        });
    if (!state->report.serve.profile.asked) return;
    state->report.live_profile = live.result();
    for (const LiveStepLevel& level : state->report.live_profile.levels)
      if (!level.note.empty())
        add_note(state->report.run, fmt::format("profile C={}: {}", level.concurrency, level.note));
  });
}

// ---- write ------------------------------------------------------------------------------------------------

// Collective: writes everything, prints the headline, and fails the run where it measured wrong results, was
// interrupted, or has a serve level without a completed request.
void write_run(const RunConfig& config, const RankContext& context, const SweepOutcome& outcome,
               CoordinatorState* state) {
  run_on_coordinator(context, [&] {
    RunInfo& run = state->report.run;
    if (outcome.interrupted || interrupt_signal() != 0) {
      run.complete = false;
      run.incomplete_reason = state->report.serve.stopped_reason.empty()
                                  ? interruption_reason(interrupt_signal())
                                  : "serve phase " + state->report.serve.stopped_reason;
    }
    write_outputs(config, *state, /*with_plots=*/run.complete && config.output.plots);
    for (const std::string& line : per_token_count_lines(state->report))
      state->table.print_note("per token count: " + line);
    for (const std::string& sentence : state->report.headline)
      state->table.print_note("headline: " + sentence);
    if (outcome.wrong > 0) {
      state->table.print_note(
          fmt::format("FAILED: {} wrong elements in the correctness pass", outcome.wrong));
      throw MeasurementFailure(fmt::format("{} wrong elements in the correctness pass", outcome.wrong));
    }
    if (!run.complete) throw Error(ExitCode::interrupted, run.incomplete_reason);
    // Everything measured is written; a level where nothing completed has no figure at all: the run failed.
    if (const std::string failed = describe_failed_levels(state->report.serve); !failed.empty()) {
      state->table.print_note("FAILED: serve phase: " + failed);
      throw RuntimeFault("serve phase failed: " + failed);
    }
  });
}

}  // namespace

int run_measure_command(const RunConfig& config, const CommandLine& cli, const RankContext& context,
                        const NcclBackend& nccl) {
  const std::string started_at = utc_now_iso8601();
  check_something_is_asked(config);
  validate_for_ranks(config, context.size());
  if (serve_asked(config)) validate_profile_levels(config);
  const std::unique_ptr<CoordinatorState> state = open_outputs(config, context);
  const Placement placement = place_run(config, context, nccl);
  const SweepPlan sweep = plan_sweep(config, context, placement.transport());
  if (state) begin_report(*state, config, cli, context, placement, sweep, started_at);
  const SweepOutcome outcome = measure_sweep(config, cli, context, placement, sweep, state.get());
  if (serve_asked(config) && !outcome.interrupted) serve(config, cli, context, state.get());
  write_run(config, context, outcome, state.get());
  return 0;
}

}  // namespace k25
