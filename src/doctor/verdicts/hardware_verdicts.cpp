// The rules over the node's hardware: ACS, the IOMMU, the driver's P2P status, DCGM, links, slots, host
// bridges, sockets, ranks' CPUs, NVLink, the engines' documented rule, and what could not be seen.
#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "doctor/verdicts/verdict_kinds.hpp"
#include "doctor/verdicts/verdict_rules.hpp"
#include "topology/link_limits.hpp"
#include "topology/node_probe.hpp"

namespace k25 {
namespace {

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
  NodeVerdict verdict = verdict_of(
      VerdictId::link_below_max,
      fmt::format("{} trained at {}, below the {} both ends support", what, link_text(gen, width),
                  link_text(gen_cap, width_cap)),
      fmt::format("{} instead of {}", bandwidth_text(gen, width), bandwidth_text(gen_cap, width_cap)));
  if (!narrow) {
    verdict.severity = Severity::check;
    verdict.cost +=
        "; only the speed is lower, which an idle GPU does to save power: read it again under load";
  }
  return verdict;
}

std::vector<FactSource> pair_evidence(const NodeModel& model, const std::vector<const NodePair*>& pairs,
                                      FactKind kind) {
  std::vector<FactSource> evidence;
  for (const NodePair* pair : pairs)
    add_evidence(evidence, sources_of(model, pair_subject(pair->a, pair->b), kind), 4);
  return evidence;
}

void acs_verdicts(const NodeModel& model, std::vector<NodeVerdict>& out) {
  const NodeFacts& facts = model.facts;
  std::vector<const NodeBridge*> redirecting, unknown;
  for (const NodeBridge& bridge : facts.bridges) {
    if (bridge.acs_redirects) redirecting.push_back(&bridge);
    if (bridge.acs == "needs root") unknown.push_back(&bridge);
  }
  if (!redirecting.empty()) {
    std::vector<std::string> names, commands;
    std::vector<const NodePair*> pairs;
    std::vector<FactSource> evidence;
    bool below_root_complex = false;
    for (const NodeBridge* bridge : redirecting) {
      names.push_back(fmt::format("{} ({}{}{})", bridge->bus_id, bridge->acs_bits,
                                  bridge->port_type.empty() ? "" : ", ", bridge->port_type));
      commands.push_back(fmt::format("setpci -s {} ECAP_ACS+0x6.w=0000", bridge->bus_id));
      add_evidence(evidence, sources_of(model, bridge_subject(bridge->bus_id), FactKind::bridge_acs));
    }
    // A redirect costs where the traffic would otherwise turn below the root complex (in a switch), and at a
    // root port, which sends peer requests between its own and another root port up for validation.
    for (const NodePair& pair : facts.pairs) {
      const bool turns_in_switch =
          pair.path == PathClass::same_switch || pair.path == PathClass::several_switches;
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
    NodeVerdict verdict = verdict_of(
        VerdictId::acs_redirect,
        fmt::format("ACS redirect bits on {} bridge{} ({}), on the path of {}{}", redirecting.size(),
                    redirecting.size() == 1 ? "" : "s", fmt::join(names, "; "), count_pairs(pairs.size()),
                    pairs.empty() ? "" : " (" + pair_list(pairs) + ")"),
        below_root_complex
            ? ""
            : "peer requests are redirected to the root complex for validation: slower, or blocked where the root complex does not forward them",
        fmt::format("as root, after every boot: {}; or disable ACS, VT-d or the IOMMU in the BIOS",
                    fmt::join(commands, "; ")));
    if (pairs.empty()) {
      verdict.severity = Severity::check;
      verdict.cost =
          "no GPU pair's traffic turns at or below these bridges, so it costs nothing between these GPUs (it may between a GPU and a NIC)";
    }
    verdict.evidence = std::move(evidence);
    out.push_back(std::move(verdict));
  }
  if (!unknown.empty()) {
    std::vector<std::string> names;
    for (const NodeBridge* bridge : unknown) names.push_back(bridge->bus_id);
    out.push_back(
        verdict_of(VerdictId::acs_unknown,
                   fmt::format("ACS of {} bridge{} on the GPUs' paths needs root to read ({})",
                               unknown.size(), unknown.size() == 1 ? "" : "s", fmt::join(names, ", "))));
  }
}

void iommu_verdict(const NodeModel& model, std::vector<NodeVerdict>& out) {
  const NodeFacts& facts = model.facts;
  if (facts.iommu.mode != "translated" || facts.gpus.empty()) return;
  NodeVerdict verdict = verdict_of(VerdictId::iommu_translated,
                                   fmt::format("IOMMU mode translated ({})", facts.iommu.evidence));
  verdict.evidence = sources_of(model, kHostSubject, FactKind::iommu);
  // A command line alone does not show the default domain the kernel chose.
  if (!model.this_host) verdict.severity = Severity::check;
  out.push_back(std::move(verdict));
}

void nvml_verdicts(const NodeModel& model, std::vector<NodeVerdict>& out) {
  std::map<std::string, std::vector<const NodePair*>> by_status;
  for (const NodePair& pair : model.facts.pairs) {
    if (pair.p2p_read.empty() && pair.p2p_write.empty()) continue;
    if ((pair.p2p_read.empty() || pair.p2p_read == "OK") &&
        (pair.p2p_write.empty() || pair.p2p_write == "OK"))
      continue;
    by_status[!pair.p2p_read.empty() && pair.p2p_read != "OK" ? pair.p2p_read : pair.p2p_write].push_back(
        &pair);
  }
  for (const auto& [status, pairs] : by_status) {
    NodeVerdict verdict = verdict_of(VerdictId::nvml_p2p_unsupported,
                                     fmt::format("the driver's P2P status '{}' for {} ({})", status,
                                                 count_pairs(pairs.size()), pair_list(pairs)));
    verdict.evidence = pair_evidence(model, pairs, FactKind::pair_p2p);
    out.push_back(std::move(verdict));
  }
}

void dcgm_verdicts(const NodeModel& model, std::vector<NodeVerdict>& out) {
  std::vector<std::string> failed, warned;
  std::vector<FactSource> evidence;
  for (const DcgmResult& result : model.dcgm) {
    std::string status = result.status;
    std::transform(status.begin(), status.end(), status.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    const bool fail = status.rfind("fail", 0) == 0, warn = status.rfind("warn", 0) == 0;
    if (!fail && !warn) continue;
    (fail ? failed : warned)
        .push_back(fmt::format("{} on {}: {}{}", result.test,
                               result.gpu < 0 ? "all GPUs" : fmt::format("GPU {}", result.gpu), result.status,
                               result.detail.empty() ? "" : " (" + result.detail + ")"));
    add_evidence(evidence, {result.source});
  }
  if (failed.empty() && warned.empty()) return;
  std::vector<std::string> all = failed;
  all.insert(all.end(), warned.begin(), warned.end());
  NodeVerdict verdict =
      verdict_of(VerdictId::dcgm_failed, fmt::format("dcgmi diag: {}", fmt::join(all, "; ")));
  if (failed.empty()) verdict.severity = Severity::check;
  verdict.evidence = std::move(evidence);
  out.push_back(std::move(verdict));
}

void link_verdicts(const NodeModel& model, std::vector<NodeVerdict>& out) {
  const NodeFacts& facts = model.facts;
  for (const NodeGpu& gpu : facts.gpus) {
    const int gen_cap = lower_known(gpu.gpu_gen_max, gpu.port_gen_max);
    const int width_cap = lower_known(gpu.gpu_width_max, gpu.port_width_max);
    if (auto verdict = link_verdict(fmt::format("GPU {} ({})'s link", gpu.index, gpu.bus_id), gpu.link_gen,
                                    gpu.link_width, gen_cap, width_cap)) {
      verdict->evidence = sources_of(model, gpu_subject(gpu.index), FactKind::gpu_link);
      out.push_back(std::move(*verdict));
    }
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
      out.push_back(std::move(*verdict));
  }
}

void slot_verdicts(const NodeModel& model, std::vector<NodeVerdict>& out) {
  for (const NodeGpu& gpu : model.facts.gpus) {
    if (gpu.port_gen_max <= 0 || gpu.port_width_max <= 0 || gpu.gpu_gen_max <= 0 || gpu.gpu_width_max <= 0)
      continue;
    if (gpu.port_gen_max >= gpu.gpu_gen_max && gpu.port_width_max >= gpu.gpu_width_max) continue;
    out.push_back(verdict_of(VerdictId::slot_below_gpu,
                             fmt::format("GPU {} ({}) can train to {}, its port {} to {} only", gpu.index,
                                         gpu.bus_id, link_text(gpu.gpu_gen_max, gpu.gpu_width_max), gpu.port,
                                         link_text(gpu.port_gen_max, gpu.port_width_max)),
                             fmt::format("{} at best instead of {}",
                                         bandwidth_text(std::min(gpu.gpu_gen_max, gpu.port_gen_max),
                                                        std::min(gpu.gpu_width_max, gpu.port_width_max)),
                                         bandwidth_text(gpu.gpu_gen_max, gpu.gpu_width_max))));
  }
}

std::vector<const NodePair*> pairs_on(const NodeFacts& facts, PathClass path) {
  std::vector<const NodePair*> pairs;
  for (const NodePair& pair : facts.pairs)
    if (pair.path == path) pairs.push_back(&pair);
  return pairs;
}

void host_bridge_verdicts(const NodeModel& model, std::vector<NodeVerdict>& out) {
  const std::vector<const NodePair*> pairs = pairs_on(model.facts, PathClass::across_host_bridges);
  if (pairs.empty()) return;
  NodeVerdict verdict =
      verdict_of(VerdictId::across_host_bridges,
                 fmt::format("{} of {} cross host bridges of one NUMA node ({})", pairs.size(),
                             count_pairs(model.facts.pairs.size()), pair_list(pairs)));
  verdict.evidence = pair_evidence(model, pairs, FactKind::pair_path);
  out.push_back(std::move(verdict));
}

void socket_verdicts(const NodeModel& model, std::vector<NodeVerdict>& out) {
  const NodeFacts& facts = model.facts;
  const std::vector<const NodePair*> pairs = pairs_on(facts, PathClass::across_sockets);
  if (pairs.empty()) return;
  std::map<int, std::vector<int>> by_node;
  for (const NodeGpu& gpu : facts.gpus) by_node[gpu.numa_node].push_back(gpu.index);
  std::vector<std::string> nodes;
  for (const auto& [node, gpus] : by_node)
    nodes.push_back(node < 0 ? fmt::format("GPUs {} on an unknown NUMA node", fmt::join(gpus, ","))
                             : fmt::format("GPUs {} on NUMA node {}", fmt::join(gpus, ","), node));
  NodeVerdict verdict = verdict_of(VerdictId::cross_socket,
                                   fmt::format("{} of {} cross CPU sockets ({})", pairs.size(),
                                               count_pairs(facts.pairs.size()), fmt::join(nodes, "; ")));
  verdict.evidence = pair_evidence(model, pairs, FactKind::pair_path);
  out.push_back(std::move(verdict));
}

void rank_verdicts(const NodeModel& model, std::vector<NodeVerdict>& out) {
  const NodeFacts& facts = model.facts;
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
  if (!far.empty())
    out.push_back(verdict_of(VerdictId::rank_far_from_gpu, fmt::format("{}", fmt::join(far, "; "))));
}

void nvlink_verdicts(const NodeModel& model, std::vector<NodeVerdict>& out) {
  const NodeFacts& facts = model.facts;
  const std::vector<const NodePair*> pairs = pairs_on(facts, PathClass::nvlink);
  if (pairs.empty()) return;
  std::map<int, int> by_count;  // NV# -> pairs; -1 where the count is not known
  for (const NodePair* pair : pairs) ++by_count[pair->nvlinks];
  std::vector<std::string> counts;
  for (auto it = by_count.rbegin(); it != by_count.rend(); ++it)
    counts.push_back(
        it->first < 0
            ? fmt::format("{} without a link count", count_pairs(static_cast<std::size_t>(it->second)))
            : fmt::format("{} NV{}", count_pairs(static_cast<std::size_t>(it->second)), it->first));
  NodeVerdict verdict = verdict_of(VerdictId::nvlink_pairs,
                                   fmt::format("{} of {} linked by NVLink ({})", pairs.size(),
                                               count_pairs(facts.pairs.size()), fmt::join(counts, ", ")));
  verdict.evidence = pair_evidence(model, pairs, FactKind::pair_nvlinks);
  if (verdict.evidence.empty()) verdict.evidence = pair_evidence(model, pairs, FactKind::pair_path);
  out.push_back(std::move(verdict));
}

void engine_verdicts(const NodeModel& model, std::vector<NodeVerdict>& out) {
  const NodeFacts& facts = model.facts;
  if (facts.gpus.size() <= 2 || facts.pairs.empty()) return;
  const bool all_nvlink = std::all_of(facts.pairs.begin(), facts.pairs.end(),
                                      [](const NodePair& pair) { return pair.path == PathClass::nvlink; });
  const bool paths_known = std::none_of(facts.pairs.begin(), facts.pairs.end(),
                                        [](const NodePair& pair) { return pair.path == PathClass::unknown; });
  if (all_nvlink || !paths_known) return;
  out.push_back(verdict_of(
      VerdictId::engine_custom_allreduce_off,
      fmt::format(
          "{} GPUs, not all pairs NVLink: vLLM's custom all-reduce stays off at tensor-parallel sizes above 2 here",
          facts.gpus.size())));
}

void no_gpu_verdict(const NodeModel& model, std::vector<NodeVerdict>& out) {
  const NodeFacts& facts = model.facts;
  if (!facts.gpus.empty()) return;
  std::string finding = !model.this_host    ? std::string("no input names the node's GPUs")
                        : facts.sysfs_found ? fmt::format("sysfs under {} lists no NVIDIA GPU", facts.root)
                                            : fmt::format("no sysfs under {}", facts.root);
  out.push_back(verdict_of(VerdictId::no_gpu, std::move(finding)));
}

}  // namespace

void hardware_verdicts(const NodeModel& model, std::vector<NodeVerdict>& out) {
  acs_verdicts(model, out);
  iommu_verdict(model, out);
  nvml_verdicts(model, out);
  dcgm_verdicts(model, out);
  link_verdicts(model, out);
  slot_verdicts(model, out);
  host_bridge_verdicts(model, out);
  socket_verdicts(model, out);
  rank_verdicts(model, out);
  nvlink_verdicts(model, out);
  engine_verdicts(model, out);
  no_gpu_verdict(model, out);
}

}  // namespace k25
