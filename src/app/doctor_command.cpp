// The doctor command: options to doctor's run, then doctor.json, doctor.md and the plot written.
#include "app/doctor_command.hpp"

#include <unistd.h>

#include <array>
#include <filesystem>
#include <ostream>

#include <fmt/format.h>

#include "app/run_facts.hpp"
#include "build_info.hpp"
#include "common/error.hpp"
#include "doctor/doctor_run.hpp"
#include "doctor/render/doctor_markdown.hpp"
#include "doctor/verdicts/node_compare.hpp"
#include "report/atomic_file.hpp"
#include "report/plot_script.hpp"

namespace k25 {
namespace {

namespace fs = std::filesystem;

std::string this_host() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "localhost";
  return name.data();
}

int run_compare(const DoctorCommandOptions& options, std::ostream& out) {
  if (options.compare.size() != 2)
    throw UsageError("doctor --compare takes two inputs: A B (doctor outputs, reports or captures)");
  const DoctorDocument a = read_compare_side(options.compare[0]);
  const DoctorDocument b = read_compare_side(options.compare[1]);
  out << node_compare_text(a, b, compare_nodes(a, b));
  return 0;
}

}  // namespace

int run_doctor_command(const DoctorCommandOptions& options, const NcclBackend& nccl, std::ostream& out) {
  if (!options.compare.empty()) return run_compare(options, out);
  DoctorRunOptions run;
  run.root = options.root.empty() ? "/" : options.root;
  run.root_given = !options.root.empty();
  run.host = options.host;
  run.this_host = this_host();
  run.from = options.from;
  run.nccl_logs = options.nccl_logs;
  run.nccl_topo = options.nccl_topo;
  run.capture = options.capture;
  run.measure = options.measure;
  // Read every input before writing anything: a bad one ends the command with nothing written.
  DoctorDocument document = run_doctor(run, nccl);
  document.tool_version = kVersion;
  document.git_sha = git_sha();
  document.created_at = utc_now_iso8601();
  document.command_line = options.command_line;

  ensure_writable_directory(options.out_dir);
  const fs::path dir(options.out_dir);
  const std::string json_path = (dir / "doctor.json").string();
  write_file_atomically(json_path, doctor_json_text(document));
  write_file_atomically((dir / "doctor.md").string(), doctor_markdown(document));
  out << doctor_console(document);
  out << fmt::format("doctor: wrote {}/doctor.json, doctor.md\n", options.out_dir);
  // tools/plot-doctor: the measured matrices as heatmaps.
  if (options.plots && document.model.facts.p2p.status == "measured")
    run_tool_plot("plot-doctor", "K25_PLOT_DOCTOR_SCRIPT", json_path, options.out_dir, out);
  return 0;
}

}  // namespace k25
