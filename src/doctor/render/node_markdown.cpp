// Markdown and console text of a node's facts and verdicts: the sections report.md's "Node diagnosis" and
// doctor.md share.
#include "doctor/render/node_markdown.hpp"

#include <initializer_list>
#include <map>

#include <fmt/format.h>

#include "common/column_table.hpp"
#include "doctor/render/render_text.hpp"
#include "topology/gpu_paths.hpp"

namespace k25 {
namespace {

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
    std::string cell = pair.path == PathClass::nvlink && pair.nvlinks > 0
                           ? fmt::format("NV{}", pair.nvlinks)
                           : path_class_abbreviation(pair.path);
    if (!pair.nccl_transports.empty()) {
      const std::string& name = pair.nccl_transports.front().name;
      cell += " " + name.substr(0, name.find_first_of("/ ,"));
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
      {"path", "", [](P p) { return TableCell(path_class_words(p.path)); }},
      {"bridges crossed", "",
       [](P p) {
         return TableCell(p.bridges.empty() ? "-" : fmt::format("{}", fmt::join(p.bridges, " > ")));
       }},
      {"NVML P2P read / write / atomics", "",
       [](P p) {
         return TableCell(p.p2p_read.empty() ? "?"
                                             : p.p2p_read + " / " + p.p2p_write + " / " + p.p2p_atomics);
       }},
      {"NCCL path (dump / route)", "",
       [](P p) {
         return TableCell(fmt::format(
             "{} / {}", p.nccl_path == PathClass::unknown ? "-" : path_class_abbreviation(p.nccl_path),
             p.nccl_route == PathClass::unknown ? "-" : path_class_abbreviation(p.nccl_route)));
       }},
      {"NCCL transport", "",
       [](P p) {
         std::vector<std::string> names;
         for (const NcclPairTransport& transport : p.nccl_transports) names.push_back(transport.name);
         return TableCell(dash(fmt::format("{}", fmt::join(names, ", "))) +
                          (p.nccl_p2p_disabled ? " (P2P disabled)" : ""));
       }},
  };
  return markdown_table(columns, row_pointers(facts.pairs), TableLayout::text) + "\n";
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
  return "None seen: " + (why.empty() ? std::string("no NVIDIA GPU in sysfs or the inputs") : why) + ".\n\n";
}

// Why the bridge table is empty.
std::string no_bridge_sentence(const NodeModel& model) {
  const NodeFacts& facts = model.facts;
  if (facts.gpus.empty()) return "None seen: no GPU, so no path to read.\n\n";
  if (!model.this_host) return "None seen: no lspci in the inputs (`sudo lspci -vvv`, `lspci -tv`).\n\n";
  if (!facts.sysfs_found) return fmt::format("None seen: sysfs under {} was not read.\n\n", facts.root);
  return "None: sysfs shows no PCIe bridge above the GPUs (each sits on a host bridge directly).\n\n";
}

constexpr const char* kNcclViewNotGiven =
    "Not given: NCCL's transport per pair comes from `k25comm doctor --from FILE` with the NCCL_DEBUG=INFO output of a job (and NCCL's topology dump, NCCL_TOPO_DUMP_FILE=FILE).\n\n";
constexpr const char* kMeasuredNotRun =
    "Measured P2P: not part of a measuring run; `k25comm doctor` on the host measures the matrix.\n\n";

}  // namespace

std::string path_matrix_text(const NodeFacts& facts, bool markdown) {
  return path_matrix(facts, markdown);
}

std::string measured_text(const P2pMeasurement& p2p, bool markdown) {
  return measured_section(p2p, markdown);
}

std::string node_markdown(const NodeModel& model, const std::vector<NodeVerdict>& verdicts, int level) {
  const NodeFacts& facts = model.facts;
  std::string md = heading(level, "Verdicts") + verdicts_markdown(verdicts);
  md += disagreements_markdown(model, level);
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
        (facts.bridges.empty() ? no_bridge_sentence(model) : bridge_table(facts));
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
    md += "\n" + nccl_log_markdown(model);
  }
  md += bandwidth_markdown(model, level) + dcgm_markdown(model, level);
  md += heading(level, "Measured P2P") +
        (facts.p2p.status == "not run" ? kMeasuredNotRun : measured_section(facts.p2p, true) + "\n");
  return md;
}

std::string node_markdown(const NodeFacts& facts, const std::vector<NodeVerdict>& verdicts, int level) {
  NodeModel model;
  model.facts = facts;
  model.this_host = true;
  return node_markdown(model, verdicts, level);
}

std::string unseen_markdown(const NodeFacts& facts, int level) {
  if (facts.unseen.empty()) return {};
  std::string md = heading(level, "Not seen");
  for (const std::string& sentence : facts.unseen) md += "- " + sentence + "\n";
  return md + "\n";
}

}  // namespace k25
