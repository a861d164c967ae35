// Reading doctor's inputs, deciding whose node they describe, and judging it.
#include "doctor/doctor_run.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "analysis/report_reader.hpp"
#include "common/error.hpp"
#include "common/whole_file.hpp"
#include "doctor/readers/capture_backends.hpp"
#include "doctor/readers/node_builder.hpp"
#include "doctor/verdicts/node_verdicts.hpp"
#include "topology/node_probe.hpp"
#include "topology/topology_info.hpp"

namespace k25 {
namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t kMostInputBytes = 512ull << 20;

std::string input_text(const std::string& path, const char* flag) {
  try {
    return read_whole_file(path, kMostInputBytes);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{} {}", flag, e.what()));
  }
}

// The files a path names: itself, or every regular file of a folder (sorted).
std::vector<std::string> files_of(const std::string& path, const char* flag) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return {path};
  std::vector<std::string> files;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) files.push_back(it->path().string());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw UsageError(fmt::format("{} {}: a folder without files", flag, path));
  return files;
}

struct ReadInputs {
  PastedInputs pasted;
  std::vector<InputRead> reads;
};

ReadInputs read_inputs(const DoctorRunOptions& options) {
  ReadInputs in;
  for (const std::string& path : options.from)
    for (const std::string& file : files_of(path, "--from"))
      in.reads.push_back(read_pasted(pasted_text(file, input_text(file, "--from")), in.pasted));
  for (const std::string& path : options.nccl_logs)
    for (const std::string& file : files_of(path, "--nccl-log")) {
      InputRead read = read_pasted_as(pasted_text(file, input_text(file, "--nccl-log")),
                                      PastedFamily::nccl_log, in.pasted);
      if (!read.left_out.empty()) read.left_out = "no NCCL INFO line (was NCCL_DEBUG=INFO set?)";
      in.reads.push_back(std::move(read));
    }
  if (!options.nccl_topo.empty()) {
    const std::string& file = options.nccl_topo;
    InputRead read = read_pasted_as(pasted_text(file, input_text(file, "--nccl-topo")),
                                    PastedFamily::nccl_topology, in.pasted);
    if (!read.left_out.empty())
      throw UsageError(fmt::format(
          "--nccl-topo {}: no <system> element: not NCCL's topology dump (NCCL_TOPO_DUMP_FILE)", file));
    in.reads.push_back(std::move(read));
  }
  return in;
}

// Every bus id the inputs name (to tell whether this host's sysfs shows the same GPUs).
std::set<std::string> bus_ids_named(const PastedInputs& pasted) {
  std::set<std::string> ids;
  for (const NcclTopologyXml& dump : pasted.dumps)
    for (const NcclXmlGpu& gpu : dump.gpus) ids.insert(gpu.bus_id);
  for (const NcclLog& log : pasted.logs)
    for (const NcclCommunicator& communicator : log.seen.communicators)
      for (const NcclRankGpu& rank : communicator.ranks)
        if (!rank.bus_id.empty()) ids.insert(rank.bus_id);
  return ids;
}

// Whether this machine's facts are the node's, and the node's name and where it came from.
struct NodeDecision {
  bool read_this_host = true;
  std::string host, host_from, why_not;
};

NodeDecision decide_node(const DoctorRunOptions& options, const PastedInputs& pasted) {
  NodeDecision decision;
  const std::map<std::string, int> hosts = hosts_named(pasted);
  std::string most;
  int most_lines = 0;
  for (const auto& [host, lines] : hosts)
    if (lines > most_lines) {
      most = host;
      most_lines = lines;
    }
  if (!options.host.empty()) {
    decision.host = options.host;
    decision.host_from = "--host";
  } else if (!most.empty()) {
    decision.host = most;
    decision.host_from = "the inputs' host names (NCCL's host:pid:tid prefixes, nccl-tests' rank lines)";
  }
  const bool named_other = !decision.host.empty() && decision.host != options.this_host;
  if (options.root_given) {
    decision.read_this_host = true;
  } else if (!options.from.empty()) {
    decision.read_this_host = false;
    decision.why_not = "--from reads what was pasted from a node";
  } else if (named_other) {
    decision.read_this_host = false;
    decision.why_not = fmt::format("the node is {}, not this host ({})", decision.host, options.this_host);
  }
  if (decision.host.empty()) {
    decision.host = decision.read_this_host ? options.this_host : "";
    decision.host_from = decision.read_this_host ? "this host" : "no input names it";
  }
  return decision;
}

}  // namespace

void derive_verdicts(DoctorDocument& document) {
  document.verdicts = node_verdicts(document.model);
  for (const std::string& note : document.backends.notes)
    document.verdicts.push_back(backend_rule_verdict(note));
  std::stable_sort(document.verdicts.begin(), document.verdicts.end(),
                   [](const NodeVerdict& a, const NodeVerdict& b) { return a.id < b.id; });
  document.headline = node_headline(document.model, document.verdicts);
}

DoctorDocument run_doctor(const DoctorRunOptions& options, const NcclBackend& nccl) {
  std::error_code ec;
  if (options.root_given && !fs::is_directory(options.root, ec))
    throw UsageError(fmt::format("--root {}: not a folder", options.root));
  ReadInputs in = read_inputs(options);
  BackendsSeen backends;
  if (!options.capture.empty()) {
    const nlohmann::json capture =
        nlohmann::json::parse(input_text(options.capture, "--capture"), nullptr, false);
    if (capture.is_discarded())
      throw UsageError(fmt::format("--capture {}: not JSON (a capture.json)", options.capture));
    backends = backends_from_capture(capture, options.capture);
  }

  NodeDecision decision = decide_node(options, in.pasted);
  NodeBuildInputs build;
  std::vector<std::string> notes;
  if (decision.read_this_host) {
    NodeProbeOptions probe;
    probe.root = options.root;
    probe.host = decision.host;
    probe.use_nvml = options.use_nvml;
    NodeFacts here = read_node_facts(probe);
    // Files without host names are this host's only where they name GPUs sysfs shows (or name none).
    const std::set<std::string> named = bus_ids_named(in.pasted);
    const bool matches =
        named.empty() || std::any_of(here.gpus.begin(), here.gpus.end(),
                                     [&](const NodeGpu& gpu) { return named.count(gpu.bus_id) != 0; });
    if (matches || options.root_given) {
      build.this_host = std::move(here);
    } else {
      notes.push_back(
          "this host's sysfs, NVML and IOMMU were not used: the inputs name none of its GPUs, so they are another node's (--root / reads them)");
      if (decision.host_from == "this host") {
        decision.host.clear();
        decision.host_from = "no input names it";
      }
    }
  } else if (!decision.why_not.empty()) {
    notes.push_back("this host's sysfs, NVML and IOMMU were not read: " + decision.why_not +
                    " (--root / reads them)");
  }
  build.pasted = std::move(in.pasted);
  build.host = decision.host;
  build.host_from = decision.host_from;

  DoctorDocument document;
  document.source = "doctor.json";
  document.model = build_node_model(std::move(build));
  document.inputs = std::move(in.reads);
  document.backends = std::move(backends);
  NodeFacts& facts = document.model.facts;
  facts.nccl.notes.insert(facts.nccl.notes.begin(), notes.begin(), notes.end());
  for (const InputRead& read : document.inputs)
    if (!read.left_out.empty())
      facts.nccl.notes.push_back(fmt::format("{}: left out: {}", read.file, read.left_out));

  P2pMeasurement& p2p = facts.p2p;
  const bool here = document.model.this_host && options.root == "/";
  if (!options.measure) {
    p2p.status = "not asked (--no-measure)";
  } else if (!document.model.this_host) {
    p2p.status = "not measured: the node is the inputs', not this host";
  } else if (!here) {
    p2p.status = "not measured: the facts are read from a copy (--root), not this host's GPUs";
  } else if (!nccl.built || nccl.measure_p2p == nullptr) {
    p2p.status = "not built: this k25comm has no NCCL transport, so it has no copy kernel (K25_WITH_CUDA)";
  } else {
    p2p = nccl.measure_p2p();
  }
  if (p2p.status != "measured" && options.measure && here)
    facts.unseen.push_back("measured P2P: " + p2p.status);
  derive_verdicts(document);
  return document;
}

namespace {

// Node facts from an older report's per-rank GPU records: links and versions, no paths.
NodeFacts facts_from_gpus(const TopologyInfo& topology) {
  NodeFacts facts;
  facts.nvml = "not asked: read from an older report";
  for (const GpuInfo& gpu : topology.gpus) {
    if (!facts.host.empty() && gpu.host != facts.host) continue;
    facts.host = gpu.host;
    NodeGpu node;
    node.index = static_cast<int>(facts.gpus.size());
    node.bus_id = gpu.bus_id;
    node.name = gpu.name;
    node.link_gen = gpu.pcie_gen;
    node.link_width = gpu.pcie_width;
    node.gpu_gen_max = gpu.pcie_gen_max;
    node.gpu_width_max = gpu.pcie_width_max;
    node.nvlinks = gpu.nvlinks;
    facts.driver_version = gpu.driver_version;
    facts.gpus.push_back(node);
  }
  facts.nccl_version = topology.nccl_version;
  facts.unseen.push_back("paths, bridges, ACS and the IOMMU: the report predates doctor's node facts");
  return facts;
}

}  // namespace

DoctorDocument doctor_input_from_json(const nlohmann::json& json, const std::string& file) {
  DoctorDocument document;
  try {
    if (!json.is_object()) throw std::invalid_argument("not a JSON object");
    if (looks_like_doctor_json(json)) {
      document = json.get<DoctorDocument>();
      return document;
    }
    if (looks_like_report_json(json)) {
      // Through the report's typed reader (every version it reads, redacted), never by member names here.
      const TopologyInfo topology = report_from_json(json, file).topology;
      const std::vector<NodeFacts>& nodes = topology.nodes;
      NodeFacts& facts = document.model.facts;
      document.model.this_host = true;
      if (!nodes.empty()) {
        facts = nodes.front();
        if (facts.nccl_version.empty()) facts.nccl_version = topology.nccl_version;
        if (nodes.size() > 1)
          facts.unseen.push_back(
              fmt::format("the report has {} hosts; compared: the first, {}", nodes.size(), facts.host));
      } else {
        facts = facts_from_gpus(topology);
      }
      document.source = fmt::format("report.json (host {})", facts.host);
      document.backends.status = "a report carries no trace.backends";
    } else if (has_capture_members(json)) {
      document.source = "capture.json";
      document.backends = backends_from_capture(json, file);
      document.model.facts.unseen.push_back("node facts: a capture carries none");
    } else {
      throw std::invalid_argument(
          "neither doctor.json (node, verdicts), report.json (results, tool) nor capture.json (capture, "
          "communicators)");
    }
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{}: {}", file, e.what()));
  }
  derive_verdicts(document);
  return document;
}

DoctorDocument read_compare_side(const std::string& path) {
  std::string file = path;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    file.clear();
    for (const char* name : {"doctor.json", "report.json", "capture.json"})
      if (fs::is_regular_file(fs::path(path) / name, ec)) {
        file = (fs::path(path) / name).string();
        break;
      }
    if (file.empty())
      throw UsageError(
          fmt::format("--compare {}: a folder without doctor.json, report.json or capture.json", path));
  }
  const nlohmann::json json = nlohmann::json::parse(input_text(file, "--compare"), nullptr, false);
  if (json.is_discarded())
    throw UsageError(fmt::format("--compare {}: not JSON (doctor.json, report.json or capture.json)", file));
  return doctor_input_from_json(json, file);
}

}  // namespace k25
