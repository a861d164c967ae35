// Orchestrates config -> plan -> transport -> measure -> gather -> analysis -> report for one run.
#include "app/measure_command.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "analysis/analyze.hpp"
#include "analysis/chrome_trace.hpp"
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
#include "config/config_keys.hpp"
#include "config/config_loader.hpp"
#include "gather/coordinator_step.hpp"
#include "gather/gathered_point.hpp"
#include "measure/measure_point.hpp"
#include "plan/decode_gaps.hpp"
#include "plan/graph_padding.hpp"
#include "plan/hang_spec.hpp"
#include "plan/rank_ops.hpp"
#include "report/atomic_file.hpp"
#include "report/console_table.hpp"
#include "report/journal.hpp"
#include "report/markdown_report.hpp"
#include "report/report_files.hpp"
#include "serve/serve_phase.hpp"
#include "topology/topology_label.hpp"
#include "topology/topology_probe.hpp"
#include "transport/make_transport.hpp"
#include "transport/registration_check.hpp"

namespace k25 {
namespace {

constexpr std::size_t kMaxTracedPoints =
    64;  // trace.json holds the representative trials of the first 64 points

// Device-only timing holds the stream while a burst is enqueued: the transport must have a stream, and the
// burst must fit in the launch queue behind the hold (checked on every rank alike, before anything runs).
void check_device_only(const std::vector<OpBurst>& bursts, const Transport& transport) {
  const std::size_t limit = transport.max_held_launches();
  if (limit == 0)
    throw UsageError(
        fmt::format("--device-only needs a GPU stream to hold; the {} transport has none (use "
                    "--backend nccl, or leave --device-only off)",
                    transport.name()));
  for (const OpBurst& burst : bursts) {
    std::size_t launches = 0;
    for (const CollectiveOp& op : burst.ops)
      launches += 1 + (op.gather_before ? 1 : 0) + (op.sum_after ? 1 : 0) + (op.stall_before ? 1 : 0);
    if (launches > limit)
      throw UsageError(
          fmt::format("--device-only: the {} burst has {} kernel launches, more than the {} that "
                      "can wait behind a held stream; leave --device-only off for this config",
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
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Writes trace.json, the CSV files, the plots (not when the run is being stopped: mpirun's SIGKILL follows
// its SIGTERM within seconds), report.md and report.json, then the journal's run_end; lists every file
// written.
void write_outputs(const RunConfig& config, CoordinatorState& state, bool with_plots) {
  RunReport& report = state.report;
  report.run.finished_at = utc_now_iso8601();
  analyze_report(report);
  const std::string dir = config.output.dir;
  std::vector<std::string> written = {state.journal->path()};
  if (config.output.trace && !state.timelines.empty()) {
    write_file_atomically(dir + "/" + kTraceFileName, chrome_trace(state.timelines).dump() + "\n");
    written.push_back(dir + "/" + kTraceFileName);
  }
  // report.json last: where it exists, every other output of the run was written before it.
  const WrittenFiles files = write_report_files(report, dir, with_plots);
  written.insert(written.end(), files.paths.begin(), files.paths.end());
  state.journal->append(run_end_record(report.run));
  std::istringstream plot_lines(files.plot_message);
  for (std::string line; std::getline(plot_lines, line);)
    if (!line.empty()) state.table.print_note(line);
  for (const std::string& path : written) state.table.print_note("wrote " + path);
}

std::string plan_summary(const std::vector<MeasuredCount>& schedule, const std::vector<DecodeStepPlan>& plans,
                         const std::vector<TimingMode>& modes, const SweepSpec& sweep, int points) {
  std::string summary = fmt::format(
      "sweep: {} ({} x {} x {} mode{}), each at most {} trials or {:g} s", count_noun(points, "point"),
      count_noun(static_cast<long long>(sweep.tokens.size()), "token count"),
      count_noun(plans.empty() ? 0 : static_cast<long long>(plans.front().phases.size()), "phase"),
      modes.size(), modes.size() == 1 ? "" : "s", sweep.iterations, sweep.time_budget_s);
  if (const std::string padding = describe_graph_padding(schedule, sweep.graph_sizes); !padding.empty())
    summary += "; graph mode pads token counts to capture sizes (sweep.graph_sizes): " + padding;
  return summary;
}

}  // namespace

int run_measure_command(const RunConfig& config, const CommandLine& cli, const RankContext& context,
                        const NcclBackend& nccl) {
  const std::string started_at = utc_now_iso8601();
  validate_for_ranks(config, context.size());
  const bool serve_asked = config.sweep.run_serve && !config.serve.endpoint.empty();

  // Output directory and journal first, and the endpoint when it is required: fail before measuring anything.
  std::unique_ptr<CoordinatorState> state;
  run_on_coordinator(context, [&] {
    state = std::make_unique<CoordinatorState>();
    ensure_writable_directory(config.output.dir);
    // Reports of an earlier run in this directory would describe another journal: a run that fails must not
    // leave them looking like its own.
    for (const std::string& stale : report_file_names())
      std::filesystem::remove(config.output.dir + "/" + stale);
    state->journal = std::make_unique<Journal>(config.output.dir + "/journal.jsonl");
    if (serve_asked) check_endpoint_reachable(config.serve);
  });

  ChosenTransport chosen = make_transport(config, context, nccl);
  Transport& transport = *chosen.transport;
  const bool graph_capable = transport.supports_graph();
  std::vector<TimingMode> modes;
  for (TimingMode mode : config.sweep.modes)
    if (mode != TimingMode::graph || graph_capable) modes.push_back(mode);
  const bool comm_asked = config.sweep.run_allreduce || config.sweep.run_alltoall;
  // Every rank knows the transport's answer: a run that would measure none of its modes stops on all of them.
  if (comm_asked && modes.empty())
    throw UsageError(fmt::format(
        "--modes graph: the {} transport has no graph mode (CUDA graphs need --backend nccl on GPUs), so "
        "nothing would be measured; add eager (--modes eager,graph) or run on the nccl transport",
        transport.name()));
  // Graph mode pads a count to the next capture size; counts that pad alike are measured once.
  const std::vector<MeasuredCount> schedule =
      measured_counts(config.sweep.tokens, modes, config.sweep.graph_sizes);
  TopologyInfo topology = probe_topology(context, transport.device(), nccl);
  if (config.transport.emulate_ranks && transport.device() >= 0) label_emulated(topology, context.size());
  check_registration(config, context, topology);  // before allocate(), which registers the buffers
  const std::vector<std::string>& hosts = context.hosts();
  const std::map<std::string, int> host_cores = gather_host_cores(context, hosts);

  if (state) {
    RunReport& report = state->report;
    report.tool = {"k25comm", kVersion, git_sha()};
    RunInfo& run = report.run;
    run.started_at = started_at;
    run.ranks = context.size();
    run.hosts = hosts;
    run.transport = transport.name();
    run.transport_reason = chosen.reason;
    run.clock = transport.clock_description();
    run.config_path = config.config_path;
    run.config = config_to_json(config);
    run.command_line = cli.text;
    run.env = launcher_environment();
    run.mpi_version = mpi_library_version();
    run.compiler = kCompiler;
    run.host_cores = host_cores;
    if (const std::string caveat = transport.caveat(context.size()); !caveat.empty())
      run.notes.push_back(caveat);
    if (const std::string note =
            registration_note(config.transport.nccl_register, context.size(), config.transport.emulate_ranks);
        !note.empty())
      run.notes.push_back(note);
    if (config.sweep.include_permute && config.sweep.run_alltoall)
      run.notes.push_back(
          "--include-permute: All-to-All times include the MoE dispatch pack and combine unpack around each "
          "exchange");
    if (!config.transport.inject_delay.empty())
      run.notes.push_back(fmt::format("test mode: --inject-delay {} made one rank arrive late at every trial",
                                      config.transport.inject_delay));
    if (config.sweep.device_only)
      run.notes.push_back(
          "device-only timing: each trial's stream was held by a blocking kernel until the whole burst was "
          "enqueued, so step times exclude the host's launch cost (a serving engine pays it in eager mode)");
    if (std::count(modes.begin(), modes.end(), TimingMode::decode) > 0) {
      const DecodeGapSpec& gaps = config.sweep.decode;
      run.notes.push_back(
          fmt::format("decode mode: before each op a compute gap of {:g} us, plus {:g} us per decoder layer "
                      "split over its "
                      "ops, plus a seeded skew of up to {:g} us per rank and op (seed {}); {}. Step = gaps + "
                      "communication; comm = step minus the rank's measured gaps",
                      gaps.gap_us, gaps.layer_gap_us, gaps.skew_us, gaps.seed,
                      transport.completes_on_launch() ? "the host transport busy-waits for each gap"
                                                      : "each gap is a GPU busy kernel on the op stream"));
      if (!gaps.gaps_from.empty()) run.notes.push_back(gaps.gaps_from);
    }
    if (!graph_capable &&
        std::count(config.sweep.modes.begin(), config.sweep.modes.end(), TimingMode::graph) > 0)
      run.notes.push_back("graph mode needs the nccl transport (CUDA graphs); only eager mode was measured");
    if (config.sweep.run_serve && config.serve.endpoint.empty())
      report.serve.skipped_reason = "no endpoint configured (serve.endpoint or --endpoint)";
    report.topology = topology;
    // What is known before measuring (a skipped serve phase, oversubscribed hosts), in run_start as well.
    refresh_derived_notes(report, {});
    state->journal->append(run_start_record(report));
    state->table.print_note(fmt::format("k25comm {} ({}) | {} | {} on {} | transport {}", kVersion, git_sha(),
                                        config.model.name, count_noun(context.size(), "rank"),
                                        count_noun(context.host_count(), "host"), chosen.reason));
    state->table.print_note(
        fmt::format("topology {} {} | clock: {}", topology.kind, topology.link_description, run.clock));
    for (const auto& note : run.notes) state->table.print_note("note: " + note);
    state->table.print_note(
        "times: max over ranks per trial; op = one collective, step = the whole burst of one decode step");
    if (comm_asked)
      state->table.print_header(!describe_graph_padding(schedule, config.sweep.graph_sizes).empty());
  }

  // Plans are pure data: every rank derives the same ones, one per measured token count.
  std::vector<DecodeStepPlan> plans;
  for (const MeasuredCount& count : schedule)
    plans.push_back(
        plan_decode_step(config.model, config.routing, config.sweep, count.tokens, context.size()));
  // What this rank issues for each phase of each plan: op descriptors, without the model.
  const RankOpOptions op_options{
      config.sweep.include_permute, parse_hang_spec(config.transport.inject_hang), {}};
  std::vector<OpBurst> bursts;  // plan by plan, phase by phase
  for (const auto& plan : plans)
    for (const auto& phase : plan.phases) bursts.push_back(burst_for_rank(phase, context.rank(), op_options));
  if (config.sweep.device_only) check_device_only(bursts, transport);
  transport.allocate(largest_buffers(bursts, context.size()));
  const TimingFacts timing{transport.completes_on_launch(), config.sweep.device_only, config.sweep.decode};

  int total_points = 0, done_points = 0;
  for (std::size_t i = 0; i < plans.size(); ++i)
    total_points += static_cast<int>(plans[i].phases.size() * schedule[i].modes.size());
  const auto sweep_started = std::chrono::steady_clock::now();
  if (state) state->sweep_progress = PeriodicProgress(stdout, cli.progress_interval_s);
  if (state && total_points > 0)
    state->table.print_note(plan_summary(schedule, plans, modes, config.sweep, total_points));

  bool interrupted = false;
  std::uint64_t wrong_total = 0;
  try {
    std::size_t next_burst = 0;
    for (std::size_t plan_index = 0; plan_index < plans.size(); ++plan_index) {
      for (const auto& phase : plans[plan_index].phases) {
        const BurstId burst = transport.prepare(bursts[next_burst++]);
        std::optional<BurstId>
            decode_burst;  // the same ops with this rank's gaps, prepared when first needed
        for (const ModeRequests& measured : schedule[plan_index].modes) {
          const TimingMode mode = measured.mode;
          if (mode == TimingMode::decode && !decode_burst) {
            RankOpOptions with_gaps = op_options;
            with_gaps.gaps_us = decode_gaps_us(phase, context.rank(), config.sweep.decode);
            decode_burst = transport.prepare(burst_for_rank(phase, context.rank(), with_gaps));
          }
          if (state)
            state->progress.show(
                done_points, total_points,
                fmt::format("{} tokens={} {}", to_string(phase.phase), phase.tokens, to_string(mode)));
          const PointSamples samples =
              measure_point(transport, phase, mode == TimingMode::decode ? *decode_burst : burst, mode,
                            config.sweep, context);
          const GatheredPoint point = gather_point(samples, context);
          ++done_points;
          if (point.interrupted) {
            interrupted = true;
            break;
          }
          if (!state) continue;
          state->progress.clear();
          const PhaseResult result = make_phase_result(phase, mode, point, timing);
          wrong_total += result.wrong;
          for (const GraphPadding& request : measured.requests) {
            const PhaseResult reported = result_for_request(result, request);
            state->report.results.push_back(reported);
            state->journal->append(result_record(reported));
            state->table.print_row(reported);
          }
          if (result.decode) {
            PhaseResult with_join_cost = result;
            fill_join_cost(with_join_cost, state->report.results);
            state->table.print_note(decode_note(with_join_cost));
          }
          if (result.launch_bound)
            state->table.print_note(
                fmt::format("launch-bound: the host took {:.1f} us of the {:.1f} us step (p50) to enqueue "
                            "the burst; graph "
                            "mode or --device-only shows what the GPUs take",
                            result.launch_us->p50, result.step_us.p50));
          state->sweep_progress.update("sweep", done_points, 0, total_points, seconds_since(sweep_started));
          if (state->timelines.size() < kMaxTracedPoints)
            state->timelines.push_back(make_trial_timeline(phase, mode, hosts, point, timing));
        }
        if (interrupted) break;
      }
      if (interrupted) break;
    }
  } catch (const PointAbandoned& stop) {
    // Coordinator only, stopped between two ops: peers may wait in a collective, so no further collective
    // runs. Write what was gathered now, before mpirun's SIGKILL; main() then ends the job with MPI_Abort.
    state->progress.clear();
    state->report.run.complete = false;
    state->report.run.incomplete_reason = stop.message();
    write_outputs(config, *state, /*with_plots=*/false);
    state->table.print_note("incomplete: " + stop.message());
    throw Error(ExitCode::interrupted, stop.message());
  }

  // Serve phase: only the coordinator talks HTTP; the others wait without spinning.
  if (serve_asked && !interrupted) {
    run_on_coordinator(context, [&] {
      bool serve_started = false;
      PeriodicProgress progress(stdout, cli.progress_interval_s);
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
          });
    });
  }

  run_on_coordinator(context, [&] {
    RunInfo& run = state->report.run;
    if (interrupted || interrupt_signal() != 0) {
      run.complete = false;
      run.incomplete_reason = state->report.serve.stopped_reason.empty()
                                  ? fmt::format("interrupted by signal {}", interrupt_signal())
                                  : "serve phase " + state->report.serve.stopped_reason;
    }
    write_outputs(config, *state, /*with_plots=*/run.complete);
    for (const std::string& sentence : state->report.headline)
      state->table.print_note("headline: " + sentence);
    if (wrong_total > 0) {
      state->table.print_note(fmt::format("FAILED: {} wrong elements in the correctness pass", wrong_total));
      throw MeasurementFailure(fmt::format("{} wrong elements in the correctness pass", wrong_total));
    }
    if (!run.complete) throw Error(ExitCode::interrupted, run.incomplete_reason);
    // Everything measured is written; a level where nothing completed has no figure at all: the run failed.
    if (const std::string failed = describe_failed_levels(state->report.serve); !failed.empty()) {
      state->table.print_note("FAILED: serve phase: " + failed);
      throw RuntimeFault("serve phase failed: " + failed);
    }
  });
  return 0;
}

}  // namespace k25
