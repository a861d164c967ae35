// The predict command: read the base and the alternatives, predict, write predict.json, .md and .csv.
#include "app/predict_command.hpp"

#include <algorithm>
#include <filesystem>
#include <ostream>

#include <fmt/format.h>

#include "app/run_facts.hpp"
#include "build_info.hpp"
#include "common/error.hpp"
#include "predict/input_formats.hpp"
#include "predict/kind_names.hpp"
#include "predict/predict_document.hpp"
#include "report/atomic_file.hpp"
#include "report/plot_script.hpp"

namespace k25 {

namespace fs = std::filesystem;

namespace {

void print_summary(const PredictDocument& r, std::ostream& out) {
  out << fmt::format("predict: base {} ({}, {} level(s)); {}\n", r.base.path, r.base.format,
                     r.base.levels.size(), r.base.step_what);
  for (const std::string& note : r.base.notes) out << "  note: " << note << "\n";
  for (const AltPrediction& a : r.alternatives) {
    out << a.headline << "\n";
    for (const std::string& m : a.mismatches) out << "  mismatch: " << m << "\n";
  }
}

}  // namespace

int run_predict_command(const PredictCommandOptions& options, std::ostream& out) {
  if (options.alt_paths.empty())
    throw UsageError(
        "predict: give at least one --with ALT (a replay report.json, nccl-tests output, a CSV)");
  if (options.labels.size() > options.alt_paths.size())
    throw UsageError(fmt::format("predict: {} --label for {} --with: one label per alternative, in order",
                                 options.labels.size(), options.alt_paths.size()));
  if (options.backends.size() > options.alt_paths.size())
    throw UsageError(fmt::format(
        "predict: {} --backend for {} --with: one backend per alternative, in order ('-' for none)",
        options.backends.size(), options.alt_paths.size()));
  if (options.kinds.size() > options.alt_paths.size())
    throw UsageError(
        fmt::format("predict: {} --kind for {} --with: one kind per alternative, in order ('-' for none)",
                    options.kinds.size(), options.alt_paths.size()));
  PredictDocument result;
  result.tool_version = kVersion;
  result.git_sha = git_sha();
  result.created_at = utc_now_iso8601();
  result.command_line = options.command_line;
  result.base = read_base_file(options.base_path);
  PredictOptions settings;
  settings.allow_extrapolation = options.extrapolate;
  for (std::size_t i = 0; i < options.alt_paths.size(); ++i) {
    AltReadContext context;
    context.base_ranks = result.base.ranks;
    if (i < options.kinds.size() && options.kinds[i] != "-") {
      context.kind = normalized_kind(options.kinds[i]);
      if (kind_title(context.kind) == context.kind)
        throw UsageError(fmt::format(
            "predict: --kind {}: not a collective (allreduce, allgather, reducescatter, alltoall, broadcast, sendrecv, reduce)",
            options.kinds[i]));
    }
    std::string label = i < options.labels.size() ? options.labels[i] : "";
    if (i < options.backends.size() && options.backends[i] != "-") {
      context.backend = options.backends[i];
      if (label.empty()) label = default_label(options.alt_paths[i]) + " " + context.backend;
    }
    const AltDocument alt = read_alt_file(options.alt_paths[i], label, context);
    if (!context.backend.empty() && alt.format != "replay report")
      throw UsageError(
          fmt::format("predict: --backend {}: {} is {}, not a replay report with AllReduce backends",
                      context.backend, options.alt_paths[i], alt.format));
    result.alternatives.push_back(predict_with(result.base, alt, settings));
  }
  ensure_writable_directory(options.out_dir);
  const fs::path dir(options.out_dir);
  const std::string json_path = (dir / "predict.json").string();
  write_file_atomically(json_path, predict_json_text(result));
  write_file_atomically((dir / "predict.md").string(), predict_markdown(result));
  write_file_atomically((dir / "predict.csv").string(), predict_csv(result));
  print_summary(result, out);
  out << fmt::format("predict: wrote {}/predict.json, predict.md, predict.csv\n", options.out_dir);
  // tools/plot-predict: the base and each alternative stacked by kind, per level.
  if (options.plots)
    run_tool_plot("plot-predict", "K25_PLOT_PREDICT_SCRIPT", json_path, options.out_dir, out);
  const bool predicted =
      std::any_of(result.alternatives.begin(), result.alternatives.end(), [](const auto& a) {
        return std::any_of(a.levels.begin(), a.levels.end(), [](const auto& l) { return l.refused.empty(); });
      });
  if (predicted) return 0;
  out << "predict: nothing predicted: every level of every alternative was refused (each headline says why)\n";
  return 1;
}

}  // namespace k25
