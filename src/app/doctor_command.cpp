// The doctor command: read the node, join NCCL's view and the capture's backends, measure, judge, write.
#include "app/doctor_command.hpp"

#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/doctor_document.hpp"
#include "analysis/node_compare.hpp"
#include "app/run_facts.hpp"
#include "build_info.hpp"
#include "common/error.hpp"
#include "report/atomic_file.hpp"
#include "report/node_markdown.hpp"
#include "report/plot_script.hpp"
#include "topology/nccl_info_log.hpp"
#include "topology/nccl_topology_xml.hpp"
#include "topology/node_nccl.hpp"
#include "topology/node_probe.hpp"

namespace k25 {
namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t kMostInputBytes = 512ull << 20;

std::string input_text(const std::string& path, const char* flag) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw UsageError(fmt::format("{} {}: no such file or directory", flag, path));
  if (!fs::is_regular_file(path, ec)) throw UsageError(fmt::format("{} {}: not a regular file", flag, path));
  if (fs::file_size(path, ec) > kMostInputBytes)
    throw UsageError(fmt::format("{} {}: larger than {} MiB", flag, path, kMostInputBytes >> 20));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("{} {}: cannot be read: {}", flag, path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The files a --nccl-log names: itself, or every regular file of a folder (sorted).
std::vector<std::string> log_files(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return {path};
  std::vector<std::string> files;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) files.push_back(it->path().string());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw UsageError(fmt::format("--nccl-log {}: a folder without files", path));
  return files;
}

std::string this_host() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "localhost";
  return name.data();
}

// What a --compare side names: a file, or the first of doctor.json, report.json, capture.json in a folder.
std::string compare_file(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return path;
  for (const char* name : {"doctor.json", "report.json", "capture.json"})
    if (fs::is_regular_file(fs::path(path) / name, ec)) return (fs::path(path) / name).string();
  throw UsageError(
      fmt::format("--compare {}: a folder without doctor.json, report.json or capture.json", path));
}

DoctorDocument read_compare_side(const std::string& path) {
  const std::string file = compare_file(path);
  const nlohmann::json json = nlohmann::json::parse(input_text(file, "--compare"), nullptr, false);
  if (json.is_discarded())
    throw UsageError(fmt::format("--compare {}: not JSON (doctor.json, report.json or capture.json)", file));
  return doctor_input_from_json(json, file);
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
  std::error_code ec;
  if (options.root != "/" && !fs::is_directory(options.root, ec))
    throw UsageError(fmt::format("--root {}: not a folder", options.root));

  // Read every input before writing anything: a bad one ends the command with nothing written.
  NodeProbeOptions probe;
  probe.root = options.root;
  probe.host = options.host.empty() ? this_host() : options.host;
  std::optional<NcclTopologyXml> dump;
  if (!options.nccl_topo.empty())
    dump = parse_nccl_topology_xml(input_text(options.nccl_topo, "--nccl-topo"), options.nccl_topo);
  std::optional<NcclInfoLog> log;
  std::vector<std::string> logs_without_nccl;
  for (const std::string& path : options.nccl_logs) {
    if (!log) log.emplace();
    for (const std::string& file : log_files(path)) {
      const int before = log->lines;
      read_nccl_info_log(input_text(file, "--nccl-log"), file, *log);
      if (log->lines == before) logs_without_nccl.push_back(file);
    }
  }
  BackendsSeen backends;
  if (!options.capture.empty()) {
    const nlohmann::json capture =
        nlohmann::json::parse(input_text(options.capture, "--capture"), nullptr, false);
    if (capture.is_discarded())
      throw UsageError(fmt::format("--capture {}: not JSON (a capture.json)", options.capture));
    backends = backends_from_capture(capture, options.capture);
  }

  DoctorDocument document;
  document.tool_version = kVersion;
  document.git_sha = git_sha();
  document.created_at = utc_now_iso8601();
  document.command_line = options.command_line;
  document.source = "doctor.json";
  document.node = read_node_facts(probe);
  if (dump) add_nccl_topology(document.node, *dump);
  if (log) add_nccl_log(document.node, *log);
  for (const std::string& file : logs_without_nccl)
    document.node.nccl.notes.push_back(
        fmt::format("{} has no NCCL INFO line (was NCCL_DEBUG=INFO set?)", file));
  document.backends = std::move(backends);

  P2pMeasurement& p2p = document.node.p2p;
  if (!options.measure) {
    p2p.status = "not asked (--no-measure)";
  } else if (options.root != "/") {
    p2p.status = "not measured: the facts are read from a copy (--root), not this host's GPUs";
  } else if (!nccl.built || nccl.measure_p2p == nullptr) {
    p2p.status = "not built: this k25comm has no NCCL transport, so it has no copy kernel (K25_WITH_CUDA)";
  } else {
    p2p = nccl.measure_p2p();
  }
  if (p2p.status != "measured" && options.measure && options.root == "/")
    document.node.unseen.push_back("measured P2P: " + p2p.status);
  derive_verdicts(document);

  ensure_writable_directory(options.out_dir);
  const fs::path dir(options.out_dir);
  const std::string json_path = (dir / "doctor.json").string();
  write_file_atomically(json_path, doctor_json_text(document));
  write_file_atomically((dir / "doctor.md").string(), doctor_markdown(document));
  out << doctor_console(document);
  out << fmt::format("doctor: wrote {}/doctor.json, doctor.md\n", options.out_dir);
  // tools/plot-doctor: the measured matrices as heatmaps.
  if (options.plots && p2p.status == "measured")
    run_tool_plot("plot-doctor", "K25_PLOT_DOCTOR_SCRIPT", json_path, options.out_dir, out);
  return 0;
}

}  // namespace k25
