// The verdict table and the rules that turn a host's facts into verdict lines.
#include "analysis/node_verdicts.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "topology/gpu_paths.hpp"
#include "topology/link_limits.hpp"
#include "topology/node_probe.hpp"

namespace k25 {
namespace {

constexpr const char* kNcclAcs = "NCCL troubleshooting guide, PCI Access Control Services (ACS)";
constexpr const char* kNcclAcsUrl =
    "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html#pci-access-control-services-acs";

const std::vector<VerdictKind> kKinds = {
    {"acs_redirect", "cost", "ACS redirects peer traffic",
     "peer requests that would turn in a PCIe switch go up to the root complex: lower bandwidth, or a hang where the root complex does not forward peer traffic",
     "turn ACS off on the bridges named: `setpci -s BUS ECAP_ACS+0x6.w=0000` as root (again after every boot), or disable ACS, VT-d or the IOMMU in the BIOS",
     kNcclAcs, kNcclAcsUrl},
    {"iommu_translated", "cost", "the IOMMU translates peer traffic",
     "every GPU-to-GPU DMA goes through the IOMMU's page tables (and, with ACS, up to the root complex): lower peer bandwidth, or hangs",
     "boot with iommu=pt (intel_iommu=on iommu=pt or amd_iommu=on iommu=pt) where VMs or VFIO need the IOMMU, else intel_iommu=off or amd_iommu=off, or disable VT-d / AMD-Vi in the BIOS",
     kNcclAcs, kNcclAcsUrl},
    {"nccl_not_p2p", "cost", "NCCL went through host memory or the network where P2P was possible",
     "each transfer between the pair is staged through host memory (SHM) or a NIC (NET): several times the latency and a fraction of the bandwidth of a direct copy",
     "find why NCCL left P2P out: an NCCL_P2P_DISABLE or NCCL_P2P_LEVEL in the environment (the log's 'set by environment' lines), ACS or the IOMMU (above), a GPU without PCIe P2P; NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P says why",
     "NCCL environment variables, NCCL_P2P_DISABLE and NCCL_P2P_LEVEL",
     "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-p2p-disable"},
    {"nvml_p2p_unsupported", "cost", "the driver reports no P2P between GPUs",
     "CUDA cannot map the peer's memory: NCCL, and the engines' custom all-reduces, go through host memory",
     "'chipset' or 'topology not supported': check ACS and the IOMMU (above) and the BIOS; 'GPU not supported': this GPU model has no PCIe P2P in this driver; 'disabled by regkey': a driver registry key turned it off",
     "NCCL troubleshooting guide, GPU-to-GPU communication (nvidia-smi topo -p2p)",
     "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting/gpu_troubleshooting.html"},
    {"link_below_max", "cost", "a PCIe link trained below what both ends support",
     "the link carries a fraction of its bandwidth, and every collective through that GPU or switch waits for it",
     "reseat the card, riser or cable, check the slot's lane and generation settings in the BIOS, then read `nvidia-smi -q -d PCIE` (GPUs) or `lspci -vv` LnkSta (bridges) while a job runs: an idle GPU lowers its speed to save power, never its width",
     "NVIDIA System Management Interface, PCIe link generation and width (current and max)",
     "https://docs.nvidia.com/deploy/nvidia-smi/index.html"},
    {"slot_below_gpu", "cost", "a GPU sits in a slot slower than the GPU",
     "the slot, not the GPU, sets the link's bandwidth",
     "move the GPU to a slot (or riser) of the GPU's generation and width, or accept the slot's limit",
     "NVIDIA System Management Interface, PCIe link generation and width (current and max)",
     "https://docs.nvidia.com/deploy/nvidia-smi/index.html"},
    {"cross_socket", "cost", "GPU pairs cross CPU sockets",
     "their traffic crosses the CPUs' interconnect (UPI, xGMI): NCCL uses P2P there only up to NCCL_P2P_LEVEL, else host memory",
     "keep each tensor-parallel group on one socket's GPUs (CUDA_VISIBLE_DEVICES; `nvidia-smi topo -m` shows which), and put the split across sockets on pipeline or data parallelism",
     "NCCL environment variables, NCCL_P2P_LEVEL (PIX, PXB, PHB, SYS)",
     "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-p2p-level"},
    {"rank_far_from_gpu", "cost", "a rank runs on CPUs of another NUMA node than its GPU",
     "its kernel launches, NCCL's proxy thread and any copy through host memory cross the socket interconnect",
     "bind each rank near its GPU: `mpirun --bind-to numa` (Open MPI), or `numactl --cpunodebind=N` with the GPU's node",
     "Open MPI mpirun(1), --bind-to; nvidia-smi topo -m, CPU Affinity",
     "https://docs.open-mpi.org/en/main/man-openmpi/man1/mpirun.1.html"},
    {"engine_custom_allreduce_off", "check", "an engine's custom all-reduce is off on this host",
     "vLLM turns its custom all-reduce off for more than two GPUs that are not all NVLink-connected: the decode step's all-reduces are NCCL's (or torch symmetric memory where enabled)",
     "nothing to fix in the node: expect NCCL's kernels in a trace (`k25comm capture` names the backend that ran), or serve with tensor-parallel groups of two, or on NVLink for latency-bound decode",
     "vLLM, vllm/distributed/device_communicators/custom_all_reduce.py (CustomAllreduce)",
     "https://github.com/vllm-project/vllm/blob/main/vllm/distributed/device_communicators/custom_all_reduce.py"},
    {"backend_rule", "check", "an engine's documented rule runs another all-reduce backend on another link",
     "the trace's all-reduce times are this backend's: on the link the rule names (PCIe instead of NVLink, more GPUs) the engine runs another backend, and these times do not carry over to such a node",
     "read the rule and its source (the note) before comparing nodes or predicting another link; `k25comm doctor --compare` of both nodes' captures lists the backend that ran on each; the engine's flags and environment (disable_custom_all_reduce, VLLM_ALLREDUCE_USE_SYMM_MEM, ...) choose it too",
     "the engine's source file the note names (capture.json trace.backend_rules)", ""},
    {"acs_unknown", "unseen", "ACS could not be read without root", "an ACS redirect, if any, stays unseen",
     "run `sudo k25comm doctor`, or `sudo lspci -vvv | grep ACSCtl`", kNcclAcs, kNcclAcsUrl},
    {"no_gpu", "unseen", "no NVIDIA GPU is visible", "the GPU, pair and link sections are empty",
     "run doctor on the GPU node, or give it NCCL's topology dump (--nccl-topo) and INFO log (--nccl-log) from there",
     "k25comm's docs/doctor.md", ""},
};

NodeVerdict from_kind(const std::string& id, std::string finding, std::string cost, std::string fix) {
  const VerdictKind& kind = verdict_kind(id);
  return {kind.id,
          kind.severity,
          std::move(finding),
          cost.empty() ? kind.cost : std::move(cost),
          fix.empty() ? kind.fix : std::move(fix),
          kind.source,
          kind.url};
}

std::string pair_name(const NodePair& pair) {
  return fmt::format("{}-{}", pair.a, pair.b);
}

// "0-1, 0-2, 1-2" with at most `most` named and "and N more".
std::string pair_list(const std::vector<const NodePair*>& pairs, std::size_t most = 8) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < pairs.size() && i < most; ++i) names.push_back(pair_name(*pairs[i]));
  std::string text = fmt::format("{}", fmt::join(names, ", "));
  if (pairs.size() > most) text += fmt::format(" and {} more", pairs.size() - most);
  return text;
}

std::string count_pairs(std::size_t count) {
  return fmt::format("{} GPU pair{}", count, count == 1 ? "" : "s");
}

int lower_known(int a, int b) {
  if (a <= 0) return b;
  if (b <= 0) return a;
  return std::min(a, b);
}

std::string link_text(int gen, int width) {
  return fmt::format("Gen{} x{}", gen, width);
}

std::string bandwidth_text(int gen, int width) {
  const auto limit = pcie_limit_gbps(gen, width);
  return limit ? fmt::format("{:.1f} GB/s per direction", *limit) : std::string("an unknown bandwidth");
}

// A link below the best both ends allow: the verdict, or nothing.
std::optional<NodeVerdict> link_verdict(const std::string& what, int gen, int width, int gen_cap,
                                        int width_cap) {
  if (gen <= 0 || width <= 0 || gen_cap <= 0 || width_cap <= 0) return std::nullopt;
  const bool narrow = width < width_cap, slow = gen < gen_cap;
  if (!narrow && !slow) return std::nullopt;
  NodeVerdict verdict = from_kind(
      "link_below_max",
      fmt::format("{} trained at {}, below the {} both ends support", what, link_text(gen, width),
                  link_text(gen_cap, width_cap)),
      fmt::format("{} instead of {}", bandwidth_text(gen, width), bandwidth_text(gen_cap, width_cap)), "");
  if (!narrow) {
    verdict.severity = "check";
    verdict.cost +=
        "; only the speed is lower, which an idle GPU does to save power: read it again under load";
  }
  return verdict;
}

bool p2p_possible(const NodePair& pair) {
  if (!pair.p2p_read.empty() || !pair.p2p_write.empty())
    return pair.p2p_read == "OK" && pair.p2p_write == "OK";
  const PathClass path = path_class_from_id(pair.path);
  return path == PathClass::nvlink || path == PathClass::same_switch || path == PathClass::several_switches ||
         path == PathClass::host_bridge;
}

// The transports of a pair's nccl_transport that are not P2P: "SHM", "NET", ...; empty where P2P was among
// them.
std::set<std::string> non_p2p_kinds(const NodePair& pair) {
  std::set<std::string> kinds;
  if (pair.nccl_transport.empty()) return kinds;
  std::size_t start = 0;
  while (start <= pair.nccl_transport.size()) {
    std::size_t end = pair.nccl_transport.find(", ", start);
    if (end == std::string::npos) end = pair.nccl_transport.size();
    const std::string transport = pair.nccl_transport.substr(start, end - start);
    const std::string kind = transport.substr(0, transport.find_first_of("/ "));
    if (kind == "P2P") return {};
    if (!kind.empty()) kinds.insert(kind);
    start = end + 2;
  }
  return kinds;
}

std::vector<NodeVerdict> acs_verdicts(const NodeFacts& facts) {
  std::vector<NodeVerdict> verdicts;
  std::vector<const NodeBridge*> redirecting, unknown;
  for (const NodeBridge& bridge : facts.bridges) {
    if (bridge.acs_redirects) redirecting.push_back(&bridge);
    if (bridge.acs == "needs root") unknown.push_back(&bridge);
  }
  if (!redirecting.empty()) {
    std::vector<std::string> names, commands;
    std::vector<const NodePair*> pairs;
    bool below_root_complex = false;
    for (const NodeBridge* bridge : redirecting) {
      names.push_back(fmt::format("{} ({}{}{})", bridge->bus_id, bridge->acs_bits,
                                  bridge->port_type.empty() ? "" : ", ", bridge->port_type));
      commands.push_back(fmt::format("setpci -s {} ECAP_ACS+0x6.w=0000", bridge->bus_id));
    }
    // A redirect costs where the traffic would otherwise turn below the root complex (in a switch), and at a
    // root port, which sends peer requests between its own and another root port up for validation.
    for (const NodePair& pair : facts.pairs) {
      const PathClass path = path_class_from_id(pair.path);
      const bool turns_in_switch = path == PathClass::same_switch || path == PathClass::several_switches;
      const bool affected =
          std::any_of(redirecting.begin(), redirecting.end(), [&](const NodeBridge* bridge) {
            const bool on_path =
                std::find(pair.bridges.begin(), pair.bridges.end(), bridge->bus_id) != pair.bridges.end();
            return on_path && (turns_in_switch || bridge->port_type == "root port");
          });
      if (!affected) continue;
      pairs.push_back(&pair);
      below_root_complex = below_root_complex || turns_in_switch;
    }
    NodeVerdict& verdict = verdicts.emplace_back(from_kind(
        "acs_redirect",
        fmt::format("ACS redirect bits on {} bridge{} ({}), on the path of {}{}", redirecting.size(),
                    redirecting.size() == 1 ? "" : "s", fmt::join(names, "; "), count_pairs(pairs.size()),
                    pairs.empty() ? "" : " (" + pair_list(pairs) + ")"),
        below_root_complex
            ? ""
            : "peer requests are redirected to the root complex for validation: slower, or blocked where the root complex does not forward them",
        fmt::format("as root, after every boot: {}; or disable ACS, VT-d or the IOMMU in the BIOS",
                    fmt::join(commands, "; "))));
    if (pairs.empty()) {
      verdict.severity = "check";
      verdict.cost =
          "no GPU pair's traffic turns at or below these bridges, so it costs nothing between these GPUs (it may between a GPU and a NIC)";
    }
  }
  if (!unknown.empty()) {
    std::vector<std::string> names;
    for (const NodeBridge* bridge : unknown) names.push_back(bridge->bus_id);
    verdicts.push_back(
        from_kind("acs_unknown",
                  fmt::format("ACS of {} bridge{} on the GPUs' paths needs root to read ({})", unknown.size(),
                              unknown.size() == 1 ? "" : "s", fmt::join(names, ", ")),
                  "", ""));
  }
  return verdicts;
}

std::vector<NodeVerdict> nccl_verdicts(const NodeFacts& facts) {
  std::vector<const NodePair*> pairs;
  std::set<std::string> kinds;
  for (const NodePair& pair : facts.pairs) {
    const std::set<std::string> not_p2p = non_p2p_kinds(pair);
    if ((not_p2p.empty() && !pair.nccl_p2p_disabled) || !p2p_possible(pair)) continue;
    pairs.push_back(&pair);
    kinds.insert(not_p2p.begin(), not_p2p.end());
  }
  if (pairs.empty()) return {};
  const std::string through = kinds.empty() ? "without P2P (NCCL: P2P is disabled between connected GPUs)"
                                            : fmt::format("through {}", fmt::join(kinds, " and "));
  // Of the settings the log says the environment made, those that keep NCCL off P2P.
  std::vector<std::string> settings;
  for (const std::string& setting : facts.nccl.environment)
    if (setting.rfind("NCCL_P2P_DISABLE", 0) == 0 || setting.rfind("NCCL_P2P_LEVEL", 0) == 0)
      settings.push_back(setting);
  std::string fix;
  if (!settings.empty())
    fix = fmt::format("the log says {}: remove that setting; and {}", fmt::join(settings, "; "),
                      verdict_kind("nccl_not_p2p").fix);
  return {from_kind("nccl_not_p2p",
                    fmt::format("NCCL connected {} {} where the path allows P2P ({})",
                                count_pairs(pairs.size()), through, pair_list(pairs)),
                    "", fix)};
}

std::vector<NodeVerdict> nvml_verdicts(const NodeFacts& facts) {
  std::map<std::string, std::vector<const NodePair*>> by_status;
  for (const NodePair& pair : facts.pairs) {
    if (pair.p2p_read.empty() && pair.p2p_write.empty()) continue;
    if (pair.p2p_read == "OK" && pair.p2p_write == "OK") continue;
    by_status[pair.p2p_read != "OK" ? pair.p2p_read : pair.p2p_write].push_back(&pair);
  }
  std::vector<NodeVerdict> verdicts;
  for (const auto& [status, pairs] : by_status)
    verdicts.push_back(from_kind("nvml_p2p_unsupported",
                                 fmt::format("NVML's P2P status '{}' for {} ({})", status,
                                             count_pairs(pairs.size()), pair_list(pairs)),
                                 "", ""));
  return verdicts;
}

std::vector<NodeVerdict> link_verdicts(const NodeFacts& facts) {
  std::vector<NodeVerdict> verdicts;
  for (const NodeGpu& gpu : facts.gpus) {
    const int gen_cap = lower_known(gpu.gpu_gen_max, gpu.port_gen_max);
    const int width_cap = lower_known(gpu.gpu_width_max, gpu.port_width_max);
    if (auto verdict = link_verdict(fmt::format("GPU {} ({})'s link", gpu.index, gpu.bus_id), gpu.link_gen,
                                    gpu.link_width, gen_cap, width_cap))
      verdicts.push_back(std::move(*verdict));
  }
  std::map<std::string, const NodeBridge*> by_bus;
  for (const NodeBridge& bridge : facts.bridges) by_bus[bridge.bus_id] = &bridge;
  for (const NodeBridge& bridge : facts.bridges) {
    // A switch's upstream port: its link is the one above the switch, shared by every GPU below it. (A root
    // or downstream port's link is its child's, checked there.)
    if (bridge.port_type != "switch upstream port") continue;
    const auto parent = by_bus.find(bridge.parent);
    const int gen_cap = lower_known(bridge.gen_max, parent == by_bus.end() ? 0 : parent->second->gen_max);
    const int width_cap =
        lower_known(bridge.width_max, parent == by_bus.end() ? 0 : parent->second->width_max);
    if (auto verdict = link_verdict(fmt::format("the link above switch {}", bridge.bus_id), bridge.link_gen,
                                    bridge.link_width, gen_cap, width_cap))
      verdicts.push_back(std::move(*verdict));
  }
  return verdicts;
}

std::vector<NodeVerdict> slot_verdicts(const NodeFacts& facts) {
  std::vector<NodeVerdict> verdicts;
  for (const NodeGpu& gpu : facts.gpus) {
    if (gpu.port_gen_max <= 0 || gpu.port_width_max <= 0 || gpu.gpu_gen_max <= 0 || gpu.gpu_width_max <= 0)
      continue;
    if (gpu.port_gen_max >= gpu.gpu_gen_max && gpu.port_width_max >= gpu.gpu_width_max) continue;
    verdicts.push_back(from_kind("slot_below_gpu",
                                 fmt::format("GPU {} ({}) can train to {}, its port {} to {} only", gpu.index,
                                             gpu.bus_id, link_text(gpu.gpu_gen_max, gpu.gpu_width_max),
                                             gpu.port, link_text(gpu.port_gen_max, gpu.port_width_max)),
                                 fmt::format("{} at best instead of {}",
                                             bandwidth_text(std::min(gpu.gpu_gen_max, gpu.port_gen_max),
                                                            std::min(gpu.gpu_width_max, gpu.port_width_max)),
                                             bandwidth_text(gpu.gpu_gen_max, gpu.gpu_width_max)),
                                 ""));
  }
  return verdicts;
}

std::vector<NodeVerdict> socket_verdicts(const NodeFacts& facts) {
  std::vector<const NodePair*> pairs;
  for (const NodePair& pair : facts.pairs)
    if (pair.path == path_class_id(PathClass::across_sockets)) pairs.push_back(&pair);
  if (pairs.empty()) return {};
  std::map<int, std::vector<int>> by_node;
  for (const NodeGpu& gpu : facts.gpus) by_node[gpu.numa_node].push_back(gpu.index);
  std::vector<std::string> nodes;
  for (const auto& [node, gpus] : by_node)
    nodes.push_back(fmt::format("GPUs {} on NUMA node {}", fmt::join(gpus, ","), node));
  return {from_kind("cross_socket",
                    fmt::format("{} of {} cross CPU sockets ({})", pairs.size(),
                                count_pairs(facts.pairs.size()), fmt::join(nodes, "; ")),
                    "", "")};
}

std::vector<NodeVerdict> rank_verdicts(const NodeFacts& facts) {
  std::vector<std::string> far;
  for (const RankOnNode& rank : facts.ranks) {
    const NodeGpu* gpu = find_gpu(facts, rank.bus_id);
    if (gpu == nullptr || gpu->local_cpus.empty() || rank.cpus.empty()) continue;
    const std::vector<int> mine = parse_cpu_list(rank.cpus), near = parse_cpu_list(gpu->local_cpus);
    std::vector<int> both;
    std::set_intersection(mine.begin(), mine.end(), near.begin(), near.end(), std::back_inserter(both));
    if (!mine.empty() && !near.empty() && both.empty())
      far.push_back(fmt::format("rank {} on CPUs {}, its GPU {} ({}) near CPUs {} (NUMA node {})", rank.rank,
                                rank.cpus, gpu->index, gpu->bus_id, gpu->local_cpus, gpu->numa_node));
  }
  if (far.empty()) return {};
  return {from_kind("rank_far_from_gpu", fmt::format("{}", fmt::join(far, "; ")), "", "")};
}

}  // namespace

std::string NodeVerdict::line() const {
  return fmt::format("{}: {}: {}. Fix: {} [source: {}{}]", severity, finding, cost, fix, source,
                     url.empty() ? "" : ", " + url);
}

const std::vector<VerdictKind>& verdict_kinds() {
  return kKinds;
}

const VerdictKind& verdict_kind(const std::string& id) {
  for (const VerdictKind& kind : kKinds)
    if (id == kind.id) return kind;
  throw std::out_of_range("no verdict kind " + id);
}

NodeVerdict backend_rule_verdict(const std::string& note) {
  return from_kind("backend_rule", note, "", "");
}

std::vector<NodeVerdict> engine_rule_verdicts(const NodeFacts& facts) {
  if (facts.gpus.size() <= 2 || facts.pairs.empty()) return {};
  const bool all_nvlink = std::all_of(facts.pairs.begin(), facts.pairs.end(), [](const NodePair& pair) {
    return pair.path == path_class_id(PathClass::nvlink);
  });
  const bool paths_known = std::none_of(facts.pairs.begin(), facts.pairs.end(), [](const NodePair& pair) {
    return pair.path == path_class_id(PathClass::unknown);
  });
  if (all_nvlink || !paths_known) return {};
  return {from_kind(
      "engine_custom_allreduce_off",
      fmt::format(
          "{} GPUs, not all pairs NVLink: vLLM's custom all-reduce stays off at tensor-parallel sizes above 2 here",
          facts.gpus.size()),
      "", "")};
}

std::vector<NodeVerdict> node_verdicts(const NodeFacts& facts) {
  std::vector<NodeVerdict> all;
  const auto add = [&all](std::vector<NodeVerdict> more) {
    for (NodeVerdict& verdict : more) all.push_back(std::move(verdict));
  };
  // ACS that could not be read goes last, with what else was not seen.
  std::vector<NodeVerdict> acs = acs_verdicts(facts);
  const auto unseen = std::stable_partition(acs.begin(), acs.end(),
                                            [](const NodeVerdict& v) { return v.id != "acs_unknown"; });
  std::vector<NodeVerdict> acs_unknown(std::make_move_iterator(unseen), std::make_move_iterator(acs.end()));
  acs.erase(unseen, acs.end());
  add(std::move(acs));
  if (facts.iommu.mode == "translated" && !facts.gpus.empty())
    all.push_back(from_kind("iommu_translated",
                            fmt::format("IOMMU mode translated ({})", facts.iommu.evidence), "", ""));
  add(nccl_verdicts(facts));
  add(nvml_verdicts(facts));
  add(link_verdicts(facts));
  add(slot_verdicts(facts));
  add(socket_verdicts(facts));
  add(rank_verdicts(facts));
  add(engine_rule_verdicts(facts));
  add(std::move(acs_unknown));
  if (facts.gpus.empty())
    all.push_back(from_kind("no_gpu",
                            facts.sysfs_found ? fmt::format("sysfs under {} lists no NVIDIA GPU", facts.root)
                                              : fmt::format("no sysfs under {}", facts.root),
                            "", ""));
  return all;
}

std::string node_headline(const NodeFacts& facts, const std::vector<NodeVerdict>& verdicts) {
  std::map<std::string, int> classes;
  for (const NodePair& pair : facts.pairs) ++classes[pair.path];
  std::vector<std::string> parts;
  for (const PathClass path :
       {PathClass::nvlink, PathClass::same_switch, PathClass::several_switches, PathClass::host_bridge,
        PathClass::across_host_bridges, PathClass::across_sockets, PathClass::unknown}) {
    const auto found = classes.find(path_class_id(path));
    if (found != classes.end())
      parts.push_back(
          fmt::format("{} {}", count_pairs(static_cast<std::size_t>(found->second)), path_class_words(path)));
  }
  const bool all_nvlink = !facts.pairs.empty() && classes.size() == 1 && classes.count("nvlink") == 1;
  std::string text = fmt::format("{}: {} GPU{}", facts.host.empty() ? "this host" : facts.host,
                                 facts.gpus.size(), facts.gpus.size() == 1 ? "" : "s");
  if (!facts.gpus.empty())
    text += fmt::format(", {}{}", all_nvlink ? "NVLink" : "PCIe",
                        parts.empty() ? "" : fmt::format(" ({})", fmt::join(parts, ", ")));
  std::vector<std::string> costs;
  for (const NodeVerdict& verdict : verdicts)
    if (verdict.severity == "cost") {
      const std::string title = verdict_kind(verdict.id).title;
      if (std::find(costs.begin(), costs.end(), title) == costs.end()) costs.push_back(title);
    }
  text += costs.empty() ? "; no finding that costs"
                        : fmt::format("; {} finding{} that cost: {}", costs.size(),
                                      costs.size() == 1 ? "" : "s", fmt::join(costs, ", "));
  // The tag: NCCL through SHM or the network where P2P was possible.
  std::set<std::string> kinds;
  for (const NodePair& pair : facts.pairs) {
    if (!p2p_possible(pair)) continue;
    for (const std::string& kind : non_p2p_kinds(pair))
      kinds.insert(kind == "SHM" ? "shared memory" : kind == "NET" ? "the network" : kind);
  }
  if (!kinds.empty())
    text += fmt::format(" [NCCL through {} where P2P was possible]", fmt::join(kinds, " and "));
  return text;
}

std::string verdict_kinds_markdown() {
  std::string md = "| verdict | kind | what it costs | how to fix it | source |\n|---|---|---|---|---|\n";
  for (const VerdictKind& kind : kKinds)
    md += fmt::format(
        "| `{}`: {} | {} | {} | {} | {} |\n", kind.id, kind.title, kind.severity, kind.cost, kind.fix,
        std::string(kind.url).rfind("https://", 0) == 0 ? fmt::format("[{}]({})", kind.source, kind.url)
                                                        : std::string(kind.source));
  return md;
}

}  // namespace k25
