// Markdown and console text of a host's node facts and verdicts.
#include "report/node_markdown.hpp"

#include <initializer_list>
#include <map>

#include <fmt/format.h>

#include "common/column_table.hpp"
#include "topology/gpu_paths.hpp"

namespace k25 {
namespace {

std::string heading(int level, const std::string& title) {
  return std::string(static_cast<std::size_t>(level), '#') + " " + title + "\n\n";
}

std::string link_text(int gen, int width) {
  return gen > 0 || width > 0 ? fmt::format("Gen{} x{}", gen, width) : "?";
}

std::string dash(const std::string& text) {
  return text.empty() ? "-" : text;
}

// The matrix of path classes, nvidia-smi topo -m's way: one row and column per GPU, each cell the class's
// abbreviation and, where NCCL's log named the pair, its transport's kind.
std::string path_matrix(const NodeFacts& facts, bool markdown) {
  const std::size_t n = facts.gpus.size();
  std::vector<std::vector<std::string>> cells(n, std::vector<std::string>(n, "X"));
  bool any_nccl = false;
  for (const NodePair& pair : facts.pairs) {
    if (pair.a < 0 || pair.b < 0 || static_cast<std::size_t>(pair.a) >= n ||
        static_cast<std::size_t>(pair.b) >= n)
      continue;
    std::string cell = path_class_abbreviation(path_class_from_id(pair.path));
    if (!pair.nccl_transport.empty()) {
      cell += " " + pair.nccl_transport.substr(0, pair.nccl_transport.find_first_of("/ ,"));
      any_nccl = true;
    }
    cells[static_cast<std::size_t>(pair.a)][static_cast<std::size_t>(pair.b)] = cell;
    cells[static_cast<std::size_t>(pair.b)][static_cast<std::size_t>(pair.a)] = cell;
  }
  std::string text;
  if (markdown) {
    text += "| |";
    for (std::size_t j = 0; j < n; ++j) text += fmt::format(" GPU{} |", j);
    text += "\n|---|";
    for (std::size_t j = 0; j < n; ++j) text += "---|";
    text += "\n";
    for (std::size_t i = 0; i < n; ++i) {
      text += fmt::format("| GPU{} |", i);
      for (std::size_t j = 0; j < n; ++j) text += " " + cells[i][j] + " |";
      text += "\n";
    }
    text += "\n";
  } else {
    text += fmt::format("{:>8}", "");
    for (std::size_t j = 0; j < n; ++j) text += fmt::format("{:>10}", fmt::format("GPU{}", j));
    text += "\n";
    for (std::size_t i = 0; i < n; ++i) {
      text += fmt::format("{:>8}", fmt::format("GPU{}", i));
      for (std::size_t j = 0; j < n; ++j) text += fmt::format("{:>10}", cells[i][j]);
      text += "\n";
    }
  }
  text +=
      "NV# NVLink, PIX one PCIe switch, PXB several switches, PHB through the host bridge (CPU), NODE across host bridges of one NUMA node, SYS across CPU sockets";
  text += any_nccl ? "; then the transport NCCL's log names (P2P, SHM, NET)\n" : "\n";
  return text;
}

// One measured figure's matrix (push, pull or memcpy), GB/s.
std::string measured_matrix(const P2pMeasurement& p2p, double P2pDirection::*figure, const std::string& title,
                            bool markdown) {
  const std::size_t n = p2p.bus_ids.size();
  std::vector<std::vector<std::string>> cells(n, std::vector<std::string>(n, "-"));
  for (const P2pDirection& d : p2p.directions)
    if (d.src >= 0 && d.dst >= 0 && static_cast<std::size_t>(d.src) < n &&
        static_cast<std::size_t>(d.dst) < n && d.*figure >= 0)
      cells[static_cast<std::size_t>(d.src)][static_cast<std::size_t>(d.dst)] =
          fmt::format("{:.1f}{}", d.*figure, d.peer_access || d.src == d.dst ? "" : "*");
  std::string text = markdown ? fmt::format("{} (rows: from GPU, columns: to GPU)\n\n| |", title)
                              : fmt::format("{} (rows: from, columns: to)\n{:>8}", title, "");
  for (std::size_t j = 0; j < n; ++j)
    text += markdown ? fmt::format(" GPU{} |", j) : fmt::format("{:>9}", fmt::format("GPU{}", j));
  text += "\n";
  if (markdown) {
    text += "|---|";
    for (std::size_t j = 0; j < n; ++j) text += "---:|";
    text += "\n";
  }
  for (std::size_t i = 0; i < n; ++i) {
    text += markdown ? fmt::format("| GPU{} |", i) : fmt::format("{:>8}", fmt::format("GPU{}", i));
    for (std::size_t j = 0; j < n; ++j)
      text += markdown ? " " + cells[i][j] + " |" : fmt::format("{:>9}", cells[i][j]);
    text += "\n";
  }
  return text + "\n";
}

std::string measured_section(const P2pMeasurement& p2p, bool markdown) {
  if (p2p.status != "measured")
    return fmt::format("Measured P2P: {}{}\n", p2p.status, p2p.note.empty() ? "" : " (" + p2p.note + ")");
  std::string text = fmt::format(
      "Measured P2P: {} B per copy, median of {}; GB/s = 1e9 bytes/s; * no peer access (through host memory)\n{}\n",
      p2p.bytes, p2p.repeats, p2p.note.empty() ? "" : p2p.note + "\n");
  if (markdown) text += "\n";
  text += measured_matrix(p2p, &P2pDirection::push_gbps,
                          "Push: a kernel on the sender writes into the receiver", markdown);
  text += measured_matrix(p2p, &P2pDirection::pull_gbps,
                          "Pull: a kernel on the receiver reads from the sender", markdown);
  text += measured_matrix(p2p, &P2pDirection::memcpy_gbps, "cudaMemcpyPeerAsync (copy engines)", markdown);
  std::vector<std::string> latencies;
  for (const P2pDirection& d : p2p.directions)
    if (d.latency_us >= 0) latencies.push_back(fmt::format("{}->{} {:.1f}", d.src, d.dst, d.latency_us));
  if (!latencies.empty())
    text += fmt::format("Latency of a {} B cudaMemcpyPeerAsync, us (event to event): {}\n", p2p.small_bytes,
                        fmt::join(latencies, ", "));
  return text;
}

std::string gpu_table(const NodeFacts& facts) {
  using G = const NodeGpu&;
  const Columns<NodeGpu> columns = {
      {"GPU", "", [](G g) { return TableCell(std::to_string(g.index)); }},
      {"bus id", "", [](G g) { return TableCell(g.bus_id); }},
      {"name", "", [](G g) { return TableCell(g.name); }},
      {"NUMA", "", [](G g) { return TableCell(g.numa_node < 0 ? "-" : std::to_string(g.numa_node)); }},
      {"near CPUs", "", [](G g) { return TableCell(dash(g.local_cpus)); }},
      {"link", "", [](G g) { return TableCell(link_text(g.link_gen, g.link_width)); }},
      {"GPU max", "", [](G g) { return TableCell(link_text(g.gpu_gen_max, g.gpu_width_max)); }},
      {"slot max", "", [](G g) { return TableCell(link_text(g.port_gen_max, g.port_width_max)); }},
      {"IOMMU group (type)", "",
       [](G g) {
         return TableCell(g.iommu_group.empty() ? "-" : g.iommu_group + " (" + dash(g.iommu_type) + ")");
       }},
      {"NVLinks", "", [](G g) { return TableCell(g.nvlinks < 0 ? "?" : std::to_string(g.nvlinks)); }},
  };
  return markdown_table(columns, row_pointers(facts.gpus), TableLayout::text) + "\n";
}

std::string bridge_table(const NodeFacts& facts) {
  using B = const NodeBridge&;
  const Columns<NodeBridge> columns = {
      {"bridge", "", [](B b) { return TableCell(b.bus_id); }},
      {"vendor:device", "", [](B b) { return TableCell(b.vendor + ":" + b.device); }},
      {"port", "", [](B b) { return TableCell(dash(b.port_type)); }},
      {"link (max)", "",
       [](B b) {
         return TableCell(link_text(b.link_gen, b.link_width) + " (" + link_text(b.gen_max, b.width_max) +
                          ")");
       }},
      {"ACS", "",
       [](B b) {
         return TableCell(b.acs != "read" ? b.acs : (b.acs_redirects ? "**redirects** " : "") + b.acs_bits);
       }},
  };
  return markdown_table(columns, row_pointers(facts.bridges), TableLayout::text) + "\n";
}

std::string pair_table(const NodeFacts& facts) {
  using P = const NodePair&;
  const Columns<NodePair> columns = {
      {"pair", "", [](P p) { return TableCell(fmt::format("{}-{}", p.a, p.b)); }},
      {"path", "", [](P p) { return TableCell(path_class_words(path_class_from_id(p.path))); }},
      {"bridges crossed", "",
       [](P p) {
         return TableCell(p.bridges.empty() ? "-" : fmt::format("{}", fmt::join(p.bridges, " > ")));
       }},
      {"NVML P2P read / write / atomics", "",
       [](P p) {
         return TableCell(p.p2p_read.empty() ? "?"
                                             : p.p2p_read + " / " + p.p2p_write + " / " + p.p2p_atomics);
       }},
      {"NCCL path", "", [](P p) { return TableCell(dash(p.nccl_path)); }},
      {"NCCL transport", "",
       [](P p) {
         return TableCell(dash(p.nccl_transport) + (p.nccl_p2p_disabled ? " (P2P disabled)" : ""));
       }},
  };
  return markdown_table(columns, row_pointers(facts.pairs), TableLayout::text) + "\n";
}

std::string backends_table(const BackendsSeen& seen) {
  using R = const BackendRun&;
  const Columns<BackendRun> columns = {
      {"kind", "", [](R r) { return TableCell(r.kind); }},
      {"bytes", "", [](R r) { return TableCell(r.bytes ? std::to_string(*r.bytes) : "?"); }},
      {"backend", "", [](R r) { return TableCell(r.backend); }, kEveryOutput, 0, Align::left},
      {"count", "", [](R r) { return TableCell::count(static_cast<double>(r.count)); }},
      {"op", "us",
       [](R r) { return TableCell::figure(r.op_us, r.op_us ? fmt::format("{:.1f}", *r.op_us) : "-"); }},
  };
  return markdown_table(columns, row_pointers(seen.runs)) + "\n";
}

// The sentence of `facts.unseen` that starts with one of `prefixes`, without it; empty where none does.
std::string unseen_sentence(const NodeFacts& facts, std::initializer_list<const char*> prefixes) {
  for (const std::string& sentence : facts.unseen)
    for (const char* prefix : prefixes)
      if (sentence.rfind(prefix, 0) == 0) return sentence.substr(std::string(prefix).size());
  return {};
}

// Why a host's GPU table is empty.
std::string no_gpu_sentence(const NodeFacts& facts) {
  const std::string why = unseen_sentence(facts, {"GPUs: ", "PCI devices: "});
  return "None seen: " + (why.empty() ? std::string("no NVIDIA GPU in sysfs or NCCL's dump") : why) + ".\n\n";
}

// Why the bridge table is empty.
std::string no_bridge_sentence(const NodeFacts& facts) {
  if (facts.gpus.empty()) return "None seen: no GPU, so no path to read.\n\n";
  if (!facts.sysfs_found) return fmt::format("None seen: sysfs under {} was not read.\n\n", facts.root);
  return "None: sysfs shows no PCIe bridge above the GPUs (each sits on a host bridge directly).\n\n";
}

constexpr const char* kNcclViewNotGiven =
    "Not given: NCCL's transport per pair comes from `k25comm doctor --nccl-topo FILE --nccl-log FILE`, with the dump of a job run with NCCL_TOPO_DUMP_FILE=FILE and its NCCL_DEBUG=INFO output.\n\n";
constexpr const char* kMeasuredNotRun =
    "Measured P2P: not part of a measuring run; `k25comm doctor` on the host measures the matrix.\n\n";
constexpr const char* kBackendsNotGiven =
    "Not given: `--capture capture.json` (a `k25comm capture` of the engine's trace) names the backend that ran per collective kind and size.\n\n";

}  // namespace

std::string node_markdown(const NodeFacts& facts, const std::vector<NodeVerdict>& verdicts, int level) {
  std::string md = heading(level, "Verdicts");
  if (verdicts.empty()) md += "No finding.\n";
  for (const NodeVerdict& verdict : verdicts)
    md += fmt::format(
        "- **{}** `{}`: {}: {}. Fix: {} ({})\n", verdict.severity, verdict.id, verdict.finding, verdict.cost,
        verdict.fix,
        verdict.url.empty() ? verdict.source : fmt::format("[{}]({})", verdict.source, verdict.url));
  md += "\n";
  md += heading(level, "GPUs");
  if (facts.gpus.empty()) {
    md += no_gpu_sentence(facts);
  } else {
    md += gpu_table(facts);
    if (!facts.ranks.empty()) {
      md += "Ranks and their CPUs: ";
      std::vector<std::string> ranks;
      for (const RankOnNode& rank : facts.ranks)
        ranks.push_back(fmt::format("rank {} on {}: CPUs {}", rank.rank, rank.bus_id, dash(rank.cpus)));
      md += fmt::format("{}\n\n", fmt::join(ranks, "; "));
    }
  }
  md += heading(level, "Paths between GPUs");
  if (facts.gpus.size() > 1) {
    md += path_matrix(facts, true) + "\n";
    md += "<details><summary>Each pair: the bridges crossed, NVML's P2P status, NCCL's view</summary>\n\n" +
          pair_table(facts) + "</details>\n\n";
  } else {
    md += fmt::format("None: a pair needs two GPUs, {} seen.\n\n", facts.gpus.size());
  }
  md += heading(level, "Bridges on the GPUs' paths") +
        (facts.bridges.empty() ? no_bridge_sentence(facts) : bridge_table(facts));
  md += heading(level, "IOMMU") + fmt::format("Mode **{}**: {}.\n\n", facts.iommu.mode, facts.iommu.evidence);
  md += heading(level, "Versions") + fmt::format("Driver {}, CUDA (driver) {}, NCCL {}; NVML: {}.\n\n",
                                                 dash(facts.driver_version), dash(facts.cuda_driver_version),
                                                 dash(facts.nccl_version), dash(facts.nvml));
  md += heading(level, "NCCL's view");
  if (facts.nccl.topology_file.empty() && facts.nccl.log_files.empty()) {
    md += kNcclViewNotGiven;
  } else {
    if (!facts.nccl.topology_file.empty())
      md += fmt::format("- topology dump: `{}`\n", facts.nccl.topology_file);
    for (const std::string& file : facts.nccl.log_files) md += fmt::format("- INFO log: `{}`\n", file);
    if (!facts.nccl.version.empty()) md += fmt::format("- version: {}\n", facts.nccl.version);
    for (const std::string& setting : facts.nccl.environment) md += fmt::format("- {}\n", setting);
    for (const std::string& note : facts.nccl.notes) md += fmt::format("- note: {}\n", note);
    md += "\n";
  }
  md += heading(level, "Measured P2P") +
        (facts.p2p.status == "not run" ? kMeasuredNotRun : measured_section(facts.p2p, true) + "\n");
  return md;
}

std::string unseen_markdown(const NodeFacts& facts, int level) {
  if (facts.unseen.empty()) return {};
  std::string md = heading(level, "Not seen");
  for (const std::string& sentence : facts.unseen) md += "- " + sentence + "\n";
  return md + "\n";
}

std::string doctor_markdown(const DoctorDocument& document) {
  std::string md =
      fmt::format("# k25comm doctor: {}\n\n", document.node.host.empty() ? "this host" : document.node.host);
  md += fmt::format("**{}**\n\n", document.headline);
  md += fmt::format("k25comm {} ({}), {}; `{}`; sysfs read under `{}`.\n\n", document.tool_version,
                    document.git_sha, document.created_at, document.command_line, document.node.root);
  md += node_markdown(document.node, document.verdicts, 2);
  md += heading(2, "All-reduce backends that ran");
  if (document.backends.file.empty()) {
    md += kBackendsNotGiven;
  } else {
    md += fmt::format("From `{}`: {}.\n\n", document.backends.file, document.backends.status);
    if (!document.backends.runs.empty()) md += backends_table(document.backends);
    for (const std::string& note : document.backends.notes) md += "- " + note + "\n";
    md += "\n";
  }
  return md + unseen_markdown(document.node, 2);
}

std::string doctor_console(const DoctorDocument& document) {
  const NodeFacts& facts = document.node;
  std::string text = "# doctor: " + document.headline + "\n";
  for (const NodeVerdict& verdict : document.verdicts) text += verdict.line() + "\n";
  if (facts.gpus.size() > 1) text += "paths:\n" + path_matrix(facts, false);
  text += fmt::format("IOMMU: {} ({})\n", facts.iommu.mode, facts.iommu.evidence);
  if (facts.p2p.status != "not run") text += measured_section(facts.p2p, false);
  if (facts.nccl.topology_file.empty() && facts.nccl.log_files.empty())
    text += "NCCL's view: not given (--nccl-topo, --nccl-log)\n";
  if (document.backends.file.empty())
    text += "backends that ran: not given (--capture)\n";
  else
    text += fmt::format("backends that ran: {} rows from {} ({})\n", document.backends.runs.size(),
                        document.backends.file, document.backends.status);
  for (const std::string& sentence : facts.unseen) text += "not seen: " + sentence + "\n";
  for (const std::string& note : facts.nccl.notes) text += "NCCL: " + note + "\n";
  return text;
}

std::string node_compare_text(const DoctorDocument& a, const DoctorDocument& b,
                              const std::vector<NodeDifference>& differences) {
  std::string text = fmt::format("A: {} ({})\nB: {} ({})\n", a.headline, a.source, b.headline, b.source);
  if (differences.empty()) return text + "no difference\n";
  text += fmt::format("{} difference{} (A | B):\n", differences.size(), differences.size() == 1 ? "" : "s");
  for (const NodeDifference& difference : differences) text += difference.line() + "\n";
  return text;
}

}  // namespace k25
