// Orchestrates config -> plan -> transport -> measure -> gather -> analysis -> report for one run.
#include "app/measure_command.hpp"

#include <algorithm>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "analysis/analyze.hpp"
#include "analysis/chrome_trace.hpp"
#include "analysis/point_result.hpp"
#include "analysis/run_report.hpp"
#include "app/run_facts.hpp"
#include "build_info.hpp"
#include "common/interrupt.hpp"
#include "config/config_json.hpp"
#include "config/config_loader.hpp"
#include "gather/coordinator_step.hpp"
#include "gather/gathered_point.hpp"
#include "measure/measure_point.hpp"
#include "report/atomic_file.hpp"
#include "report/console_table.hpp"
#include "report/journal.hpp"
#include "report/markdown_report.hpp"
#include "serve/serve_phase.hpp"
#include "topology/topology_probe.hpp"
#include "transport/make_transport.hpp"

namespace k25 {
namespace {

constexpr std::size_t kMaxTracedPoints =
    64;  // trace.json holds the representative trial of the first 64 points

BufferSizes largest_buffers(const std::vector<DecodeStepPlan>& plans) {
  BufferSizes sizes;
  for (const auto& plan : plans)
    for (const auto& phase : plan.phases) {
      if (phase.phase == Phase::allreduce) {
        sizes.allreduce_bytes = std::max(sizes.allreduce_bytes, phase.max_send_bytes_per_rank());
      } else {
        sizes.alltoall_send_bytes = std::max(sizes.alltoall_send_bytes, phase.max_send_bytes_per_rank());
        sizes.alltoall_recv_bytes = std::max(sizes.alltoall_recv_bytes, phase.max_recv_bytes_per_rank());
      }
    }
  return sizes;
}

// Everything only the coordinator holds while the run goes on.
struct CoordinatorState {
  RunReport report;
  std::unique_ptr<Journal> journal;
  std::vector<TrialTimeline> timelines;
  ConsoleTable table{stdout};
  ProgressLine progress;
};

void write_outputs(const RunConfig& config, CoordinatorState& state) {
  RunReport& report = state.report;
  report.run.finished_at = utc_now_iso8601();
  analyze_report(report);
  const std::string dir = config.output.dir;
  if (config.output.trace && !state.timelines.empty())
    write_file_atomically(dir + "/" + kTraceFileName, chrome_trace(state.timelines).dump() + "\n");
  // report.json last: where it exists, every other output of the run was written before it.
  write_file_atomically(dir + "/report.md", render_markdown(report, existing_artifacts(dir)));
  write_file_atomically(dir + "/report.json", nlohmann::json(report).dump(2) + "\n");
  state.journal->append({{"type", "run_end"},
                         {"finished_at", report.run.finished_at},
                         {"complete", report.run.complete},
                         {"incomplete_reason", report.run.incomplete_reason},
                         {"notes", report.run.notes}});
}

}  // namespace

int run_measure_command(const RunConfig& config, const CommandLine& cli, const RankContext& context) {
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
    for (const char* stale : {"/report.json", "/report.md"})
      std::filesystem::remove(config.output.dir + stale);
    state->journal = std::make_unique<Journal>(config.output.dir + "/journal.jsonl");
    if (serve_asked) check_endpoint_reachable(config.serve);
  });

  ChosenTransport chosen = make_transport(config, context);
  Transport& transport = *chosen.transport;
  const bool graph_capable = transport.supports_graph();
  TopologyInfo topology = probe_topology(context, transport.name() == "nccl");
  const std::vector<std::string>& hosts = context.hosts();

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
    if (const std::string caveat = transport.caveat(context.size()); !caveat.empty())
      run.notes.push_back(caveat);
    if (!graph_capable &&
        std::count(config.sweep.modes.begin(), config.sweep.modes.end(), TimingMode::graph) > 0)
      run.notes.push_back("graph mode needs the nccl transport (CUDA graphs); only eager mode was measured");
    if (config.sweep.run_serve && config.serve.endpoint.empty()) {
      report.serve.skipped_reason = "no endpoint configured (serve.endpoint or --endpoint)";
      run.notes.push_back("serve phase skipped: " + report.serve.skipped_reason);
    }
    report.topology = topology;
    state->journal->append({{"type", "run_start"},
                            {"schema_version", kReportSchemaVersion},
                            {"tool", report.tool},
                            {"run", run},
                            {"topology", report.topology}});
    state->table.print_note(fmt::format("k25comm {} ({}) | {} | {} ranks on {} host(s) | transport {}",
                                        kVersion, git_sha(), config.model.name, context.size(),
                                        context.host_count(), chosen.reason));
    state->table.print_note(
        fmt::format("topology {} {} | clock: {}", topology.kind, topology.link_description, run.clock));
    for (const auto& note : run.notes) state->table.print_note("note: " + note);
    state->table.print_note(
        "times: max over ranks per trial; op = one collective, step = the whole burst of one decode step");
    if (config.sweep.run_allreduce || config.sweep.run_alltoall) state->table.print_header();
  }

  // Plans are pure data: every rank derives the same ones.
  std::vector<DecodeStepPlan> plans;
  for (int tokens : config.sweep.tokens)
    plans.push_back(plan_decode_step(config.model, config.routing, config.sweep, tokens, context.size()));
  transport.allocate(largest_buffers(plans));

  std::vector<TimingMode> modes;
  for (TimingMode mode : config.sweep.modes)
    if (mode == TimingMode::eager || graph_capable) modes.push_back(mode);
  int total_points = 0, done_points = 0;
  for (const auto& plan : plans) total_points += static_cast<int>(plan.phases.size() * modes.size());

  bool interrupted = false;
  std::uint64_t wrong_total = 0;
  try {
    for (const auto& plan : plans) {
      for (const auto& phase : plan.phases) {
        transport.prepare(phase);
        for (TimingMode mode : modes) {
          if (state)
            state->progress.show(
                done_points, total_points,
                fmt::format("{} tokens={} {}", to_string(phase.phase), phase.tokens, to_string(mode)));
          const PointSamples samples = measure_point(transport, phase, mode, config.sweep, context);
          const GatheredPoint point = gather_point(samples, context);
          ++done_points;
          if (point.interrupted) {
            interrupted = true;
            break;
          }
          if (!state) continue;
          state->progress.clear();
          const PhaseResult result = make_phase_result(phase, mode, point);
          wrong_total += result.wrong;
          state->report.results.push_back(result);
          state->journal->append({{"type", "result"}, {"result", result}});
          state->table.print_row(result);
          if (!point.representative_trial.empty() && state->timelines.size() < kMaxTracedPoints)
            state->timelines.push_back(
                TrialTimeline{phase.phase, phase.tokens, mode, hosts, point.representative_trial});
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
    write_outputs(config, *state);
    state->table.print_note(fmt::format("wrote {}/report.json, report.md and journal.jsonl (incomplete: {})",
                                        config.output.dir, stop.message()));
    throw Error(ExitCode::interrupted, stop.message());
  }

  // Serve phase: only the coordinator talks HTTP; the others wait without spinning.
  if (serve_asked && !interrupted) {
    run_on_coordinator(context, [&] {
      bool serve_started = false;
      state->report.serve =
          run_serve_phase(config.serve, [&](const ServeReport& header, const ServeLevel& level) {
            if (!serve_started) {
              ServeReport without_levels = header;
              without_levels.levels.clear();
              state->journal->append({{"type", "serve_start"}, {"serve", without_levels}});
              serve_started = true;
            }
            state->journal->append({{"type", "serve_level"}, {"level", level}});
            fmt::print(
                "# serve: concurrency {:>4}: {}/{} completed, TPOT p50 {:.2f} ms, TTFT p50 {:.1f} ms, {:.1f} "
                "tok/s\n",
                level.concurrency, level.completed, level.requests, level.tpot_ms.p50, level.ttft_ms.p50,
                level.output_tokens_per_s);
            std::fflush(stdout);
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
    write_outputs(config, *state);
    state->table.print_note(
        fmt::format("wrote {}/report.json, report.md and journal.jsonl", config.output.dir));
    if (wrong_total > 0) {
      state->table.print_note(fmt::format("FAILED: {} wrong elements in the correctness pass", wrong_total));
      throw MeasurementFailure(fmt::format("{} wrong elements in the correctness pass", wrong_total));
    }
    if (!run.complete) throw Error(ExitCode::interrupted, run.incomplete_reason);
  });
  return 0;
}

}  // namespace k25
