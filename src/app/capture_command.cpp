// The capture command: read Inspector output and profiler traces, analyse, compare, write the capture files
// and plots.
#include "app/capture_command.hpp"

#include <cmath>
#include <filesystem>
#include <ostream>

#include <fmt/format.h>

#include "analysis/report_reader.hpp"
#include "app/replay_config_option.hpp"
#include "app/run_facts.hpp"
#include "build_info.hpp"
#include "capture/analysis/capture_analysis.hpp"
#include "capture/analysis/replay_comparison.hpp"
#include "capture/render/capture_csv.hpp"
#include "capture/render/capture_markdown.hpp"
#include "capture/render/trace_headline.hpp"
#include "capture/trace_files.hpp"
#include "common/error.hpp"
#include "config/config_loader.hpp"
#include "report/atomic_file.hpp"
#include "report/plot_script.hpp"

namespace k25 {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> make_plots(const std::string& json_path, const std::string& csv_path,
                                    const std::string& out_dir, const std::string& script_option,
                                    std::ostream& out) {
  const std::string script = find_tool_script(script_option, "plot-capture", "K25_PLOT_CAPTURE_SCRIPT");
  if (script.empty()) {
    out << "plots: not made: tools/plot-capture not found (set K25_PLOT_CAPTURE_SCRIPT)\n";
    return {};
  }
  const ProcessResult plot = run_process({plot_python(), script, json_path, csv_path, "--out", out_dir});
  if (plot.exit_code == kPlotScriptNoMatplotlib) {
    out << "plots: not made: " << plot.output << "  (on Debian: apt-get install python3-matplotlib)\n";
    return {};
  }
  if (plot.exit_code != 0) {
    out << fmt::format("plots: not made: {} exited with {}:\n{}", script, plot.exit_code, plot.output);
    return {};
  }
  out << plot.output;
  std::vector<std::string> made;
  std::error_code ec;
  for (const auto& [file, title] : capture_plot_files())
    if (fs::is_regular_file(fs::path(out_dir) / file, ec)) made.push_back(file);
  return made;
}

void print_summary(const CaptureResult& r, std::ostream& out) {
  std::uint64_t coll = 0, p2p = 0, traces = 0;
  for (const InputFile& f : r.inputs) {
    coll += f.coll_records;
    p2p += f.p2p_records;
    if (f.format != "inspector") ++traces;
  }
  out << fmt::format("capture: {} file(s), {} collective and {} P2P records, {} communicator(s)\n",
                     r.inputs.size(), coll, p2p, r.communicators.size());
  if (traces > 0) {
    for (const std::string& line : trace_headline(r.trace, 3)) out << "  trace: " << line << "\n";
    for (const std::string& note : r.trace.notes) out << "  note: " << note << "\n";
  }
  for (const CommunicatorResult& c : r.communicators) {
    out << fmt::format("  communicator {}{}: {} ranks{}, {} collectives joined, records {}", c.id,
                       c.name.empty() || c.name == "unknown" ? "" : " (" + c.name + ")", c.n_ranks,
                       c.missing_rank_count == 0 ? "" : fmt::format(" ({} missing)", c.missing_rank_count),
                       c.joined_ops, c.sampling.verdict);
    if (c.step.found) {
      out << fmt::format("; step: {}: {} {}", c.step.pattern_text, c.step.decode_steps,
                         decode_steps_word(c.step));
      if (c.step.decode_comm_us) out << fmt::format(" (comm p50 {:.1f} us)", c.step.decode_comm_us->p50);
      out << fmt::format(", {} prefill", c.step.prefill_steps);
    } else if (c.coll_records > 0) {
      out << "; no step: " << c.step.reason;
    }
    if (c.p2p_records > 0) out << fmt::format("; {} P2P records", c.p2p_records);
    out << "\n";
  }
  for (const std::string& note : r.notes) out << "  note: " << note << "\n";
}

}  // namespace

int run_capture_command(const CaptureOptions& options, std::ostream& out) {
  if (options.inputs.empty())
    throw UsageError(
        "capture: give at least one Inspector log, profiler trace or nsys export (file or folder)");
  if (!(options.step_gap_us > 0) || !std::isfinite(options.step_gap_us))
    throw UsageError("--step-gap-us must be a positive number of microseconds");
  if (!(options.prefill_factor > 1.0) || !std::isfinite(options.prefill_factor))
    throw UsageError("--prefill-factor must be a number above 1");
  if (options.prefill_tokens && options.model_config.empty())
    throw UsageError(
        "--prefill-tokens needs --model CONFIG (sizes become tokens through the model's hidden size)");
  if (options.tpot_ms && !(*options.tpot_ms > 0 && std::isfinite(*options.tpot_ms)))
    throw UsageError("--tpot must be a positive number of milliseconds");

  // Everything that can be refused is checked before the capture files are read.
  if (!options.emit_config.empty() && options.model_config.empty())
    throw UsageError(
        "--emit-config needs --model CONFIG: the Inspector records sizes, not token counts, and the replay config takes the model's shape and bytes per token from it");
  CaptureRules rules;
  rules.kernel_class_tables = options.kernel_classes;
  rules.step_gap_us = options.step_gap_us;
  rules.prefill_factor = options.prefill_factor;
  rules.prefill_tokens = options.prefill_tokens;
  std::optional<RunConfig> model;
  if (!options.model_config.empty()) {
    model = load_config(options.model_config);
    rules.model = capture_model(model->model);
    rules.model->graph_sizes = model->sweep.graph_sizes;
  }
  std::optional<RunReport> replay, serve;
  if (!options.replay_path.empty()) replay = read_report_file(options.replay_path);
  if (!options.serve_path.empty()) {
    serve = read_report_file(options.serve_path);
    if (serve->serve.levels.empty())
      throw UsageError(fmt::format("{}: no serve levels (its serve phase did not run)", options.serve_path));
  }

  CaptureResult result = analyze_capture_files(options.inputs, rules);
  result.tool = {"k25comm", kVersion, git_sha()};
  result.created_at = utc_now_iso8601();
  result.command_line = options.command_line;
  result.model_config = options.model_config;
  if (replay) result.replay = compare_with_replay(result, *replay, options.replay_path);
  result.attribution = live_attribution(result, serve ? serve->serve.levels : std::vector<ServeLevel>{},
                                        options.tpot_ms, replay ? &*replay : nullptr);
  ReplayConfigText emitted;
  if (!options.emit_config.empty()) {
    emitted = replay_config_text(result, *model, options.model_config, options.inputs, options.emit_config);
    result.emit_config = {true, false, options.emit_config, emitted.reason};
  }

  ensure_writable_directory(options.out_dir);
  if (emitted.ok) {  // before capture.json, which says it was written
    write_file_atomically(options.emit_config, emitted.yaml);
    result.emit_config.written = true;
  }
  const std::string json_path = (fs::path(options.out_dir) / "capture.json").string();
  const std::string csv_path = (fs::path(options.out_dir) / "capture-ops.csv").string();
  const std::string md_path = (fs::path(options.out_dir) / "capture.md").string();
  // Paths may hold bytes that are not UTF-8: replaced rather than failing the whole file.
  write_file_atomically(
      json_path, nlohmann::json(result).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  write_file_atomically(csv_path, render_ops_csv(result));
  const std::string steps_path = (fs::path(options.out_dir) / "capture-steps.csv").string();
  if (result.trace.present) write_file_atomically(steps_path, render_steps_csv(result.trace));
  std::vector<std::string> plots;
  if (options.plots) plots = make_plots(json_path, csv_path, options.out_dir, options.plot_script, out);
  write_file_atomically(md_path, render_capture_markdown(result, plots));

  print_summary(result, out);
  out << fmt::format("wrote {}, {} and {}{}\n", json_path, md_path, csv_path,
                     result.trace.present ? " and " + steps_path : "")
      << std::flush;
  if (result.emit_config.written) out << fmt::format("wrote {}: {}\n", options.emit_config, emitted.summary);
  if (result.emit_config.requested && !result.emit_config.written)
    throw UsageError(fmt::format("--emit-config {}: not written: {}", options.emit_config, emitted.reason));
  return 0;
}

}  // namespace k25
