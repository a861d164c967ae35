// The rules over NCCL's view and the pasted bandwidth tests.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "doctor/verdicts/nccl_version_rules.hpp"
#include "doctor/verdicts/verdict_kinds.hpp"
#include "doctor/verdicts/verdict_rules.hpp"

namespace k25 {
namespace {

// A P2P stays 5 % below staging before it counts: closer is one run's noise.
constexpr double kSlowerBand = 0.95;

bool any_p2p(const NodePair& pair) {
  return std::any_of(pair.nccl_transports.begin(), pair.nccl_transports.end(),
                     [](const NcclPairTransport& t) { return t.kind == NcclTransportKind::p2p; });
}

// The channel lines that connected the pair's GPUs.
std::vector<FactSource> connection_evidence(const NodeModel& model, const NodePair& pair) {
  std::vector<FactSource> sources;
  for (const NcclRankConnection& connection : model.nccl.connections)
    if ((connection.gpu_a == pair.a && connection.gpu_b == pair.b) ||
        (connection.gpu_a == pair.b && connection.gpu_b == pair.a))
      sources.push_back(connection.source);
  return sources;
}

// The settings that keep NCCL off P2P for some path: NCCL_P2P_DISABLE other than 0, NCCL_P2P_LEVEL.
std::vector<const NcclSetting*> p2p_settings(const NodeModel& model) {
  std::vector<const NcclSetting*> settings;
  for (const NcclSetting& setting : model.nccl.settings)
    if ((setting.name == "NCCL_P2P_DISABLE" && setting.value != "0") || setting.name == "NCCL_P2P_LEVEL")
      settings.push_back(&setting);
  return settings;
}

// The farthest path class NCCL_P2P_LEVEL lets P2P cross (LOC: none, NVL: NVLink only, PIX, PXB, PHB, SYS; the
// numbers of older NCCL: 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 and 5 SYS).
int level_reach(const std::string& value) {
  static const std::map<std::string, int> kLevels = {{"LOC", 0}, {"NVL", 1}, {"PIX", 2}, {"PXB", 3},
                                                     {"PHB", 4}, {"SYS", 6}, {"0", 0},   {"1", 2},
                                                     {"2", 3},   {"3", 4},   {"4", 6},   {"5", 6}};
  const auto found = kLevels.find(value);
  return found == kLevels.end() ? 6 : found->second;
}

void not_p2p_verdict(const NodeModel& model, std::vector<NodeVerdict>& out) {
  std::vector<const NodePair*> pairs;
  std::set<std::string> kinds;
  std::vector<FactSource> evidence;
  for (const NodePair& pair : model.facts.pairs) {
    const bool off_p2p = (!pair.nccl_transports.empty() && !any_p2p(pair)) || pair.nccl_p2p_disabled;
    if (!off_p2p || !p2p_possible(model, pair)) continue;
    pairs.push_back(&pair);
    for (const NcclPairTransport& transport : pair.nccl_transports)
      kinds.insert(transport.name.substr(0, transport.name.find('/')));
    add_evidence(evidence, connection_evidence(model, pair), 3);
    add_evidence(evidence, sources_of(model, pair_subject(pair.a, pair.b), FactKind::pair_path), 5);
  }
  if (pairs.empty()) return;
  const std::string through = kinds.empty() ? "without P2P (NCCL: P2P is disabled between connected GPUs)"
                                            : fmt::format("through {}", fmt::join(kinds, " and "));
  std::vector<std::string> said;
  for (const NcclSetting* setting : p2p_settings(model)) {
    said.push_back(fmt::format("{}={}", setting->name, setting->value));
    add_evidence(evidence, {setting->source}, 8);
  }
  std::string fix;
  if (!said.empty())
    fix = fmt::format("the log says the environment set {}: remove it (p2p_env_limited); and {}",
                      fmt::join(said, ", "), verdict_kind(VerdictId::nccl_not_p2p).fix);
  NodeVerdict verdict = verdict_of(VerdictId::nccl_not_p2p,
                                   fmt::format("NCCL connected {} {} where the path allows P2P ({})",
                                               count_pairs(pairs.size()), through, pair_list(pairs)),
                                   "", fix);
  verdict.evidence = std::move(evidence);
  out.push_back(std::move(verdict));
}

void switch_through_cpu_verdict(const NodeModel& model, std::vector<NodeVerdict>& out) {
  std::vector<const NodePair*> pairs;
  std::vector<FactSource> evidence;
  std::set<std::string> why;
  for (const NodePair& pair : model.facts.pairs) {
    if (pair.path != PathClass::same_switch && pair.path != PathClass::several_switches) continue;
    const std::string subject = pair_subject(pair.a, pair.b);
    const bool routed_up = pair.nccl_route == PathClass::host_bridge ||
                           pair.nccl_route == PathClass::across_host_bridges ||
                           pair.nccl_route == PathClass::across_sockets;
    bool no_p2p = false;
    for (const Observation* said : observations_of(model, subject, FactKind::pair_p2p))
      if (said->value != "OK") {
        no_p2p = true;
        why.insert(said->value);
      }
    if (!routed_up && !no_p2p) continue;
    if (routed_up)
      why.insert(
          fmt::format("NCCL's path table routes them through {}", path_class_abbreviation(pair.nccl_route)));
    pairs.push_back(&pair);
    add_evidence(evidence, sources_of(model, subject, FactKind::pair_path), 2);
    add_evidence(evidence, sources_of(model, subject, FactKind::pair_nccl_route), 4);
    add_evidence(evidence, sources_of(model, subject, FactKind::pair_p2p), 6);
  }
  if (pairs.empty()) return;
  NodeVerdict verdict =
      verdict_of(VerdictId::switch_through_cpu,
                 fmt::format("{} below one PCIe switch have no P2P between them ({}): {}",
                             count_pairs(pairs.size()), pair_list(pairs), fmt::join(why, "; ")));
  verdict.evidence = std::move(evidence);
  out.push_back(std::move(verdict));
}

void slower_than_staging_verdict(const NodeModel& model, std::vector<NodeVerdict>& out) {
  std::vector<std::string> slow;
  std::vector<FactSource> evidence;
  for (const PairBandwidth& figures : model.bandwidth) {
    if (figures.p2p_enabled_gbps < 0 || figures.p2p_disabled_gbps <= 0) continue;
    if (figures.p2p_enabled_gbps >= figures.p2p_disabled_gbps * kSlowerBand) continue;
    slow.push_back(fmt::format("{}->{} {:.1f} GB/s with P2P, {:.1f} without", figures.src, figures.dst,
                               figures.p2p_enabled_gbps, figures.p2p_disabled_gbps));
    add_evidence(evidence, {figures.enabled_source, figures.disabled_source}, 6);
  }
  if (slow.empty()) return;
  const std::size_t shown = std::min<std::size_t>(slow.size(), 6);
  NodeVerdict verdict = verdict_of(
      VerdictId::p2p_slower_than_disabled,
      fmt::format("{} direction{} of GPU pairs copy slower with P2P than through host memory ({}{})",
                  slow.size(), slow.size() == 1 ? "" : "s",
                  fmt::join(slow.begin(), slow.begin() + static_cast<std::ptrdiff_t>(shown), "; "),
                  slow.size() > shown ? fmt::format("; and {} more", slow.size() - shown) : ""));
  verdict.evidence = std::move(evidence);
  out.push_back(std::move(verdict));
}

void environment_verdict(const NodeModel& model, std::vector<NodeVerdict>& out) {
  for (const NcclSetting* setting : p2p_settings(model)) {
    const int reach = setting->name == "NCCL_P2P_DISABLE" ? 0 : level_reach(setting->value);
    std::vector<const NodePair*> pairs;
    for (const NodePair& pair : model.facts.pairs)
      if (path_reach(pair.path) > reach && p2p_possible(model, pair)) pairs.push_back(&pair);
    if (setting->name == "NCCL_P2P_LEVEL" && reach >= 6) continue;  // SYS lets every path use P2P
    NodeVerdict verdict = verdict_of(
        VerdictId::p2p_env_limited,
        pairs.empty()
            ? fmt::format("the environment set {}={}", setting->name, setting->value)
            : fmt::format("the environment set {}={}: {} whose path allows P2P are kept off it ({})",
                          setting->name, setting->value, count_pairs(pairs.size()), pair_list(pairs)));
    if (pairs.empty()) {
      verdict.severity = Severity::check;
      verdict.cost =
          "NCCL keeps off P2P beyond the level set; no pair of this node whose path allows P2P is known to be affected";
    }
    verdict.evidence = {setting->source};
    out.push_back(std::move(verdict));
  }
}

bool in_range(const NcclVersionNumber& version, const NcclVersionRule& rule) {
  return version != NcclVersionNumber{0, 0, 0} && version >= rule.from && version < rule.below;
}

void version_verdicts(const NodeModel& model, std::vector<NodeVerdict>& out) {
  std::vector<NcclVersionSeen> versions = model.nccl.versions;
  if (versions.empty() && !model.facts.nccl_version.empty())
    versions.push_back(
        {model.facts.nccl_version, sources_of(model, kHostSubject, FactKind::nccl_version).empty()
                                       ? FactSource{}
                                       : sources_of(model, kHostSubject, FactKind::nccl_version).front()});
  for (const NcclVersionRule& rule : nccl_version_rules()) {
    const NcclVersionSeen* version = nullptr;
    for (const NcclVersionSeen& seen : versions)
      if (in_range(nccl_version_number(seen.version), rule)) version = &seen;
    const NodeGpu* gpu = nullptr;
    for (const NodeGpu& candidate : model.facts.gpus)
      if (rule.gpu_matches(candidate)) gpu = &candidate;
    const NcclSharedMemory* error = nullptr;
    if (std::string(rule.error_line) == "ncclMaxSharedMem" && !model.nccl.shared_memory.empty())
      error = &model.nccl.shared_memory.front();
    const bool decided =
        version != nullptr ? gpu != nullptr || error != nullptr : error != nullptr && versions.empty();
    if (!decided) continue;
    std::string finding = fmt::format(
        "NCCL {} on {}: {}", version != nullptr ? version->version : "(its version not in the inputs)",
        gpu != nullptr ? fmt::format("GPU {} ({})", gpu->index, gpu->name) : rule.family, rule.what);
    if (error != nullptr)
      finding +=
          fmt::format("; the log shows it: ncclMaxSharedMem {} exceeds {}", error->needed, error->available);
    NodeVerdict verdict = verdict_of(VerdictId::nccl_version_gpu, std::move(finding), "", rule.fix);
    verdict.severity = rule.severity;
    verdict.source = rule.source;
    verdict.url = rule.url;
    if (version != nullptr) add_evidence(verdict.evidence, {version->source});
    if (gpu != nullptr)
      add_evidence(verdict.evidence, sources_of(model, gpu_subject(gpu->index), FactKind::gpu_name), 3);
    if (error != nullptr) add_evidence(verdict.evidence, {error->source});
    out.push_back(std::move(verdict));
  }
}

}  // namespace

void nccl_verdicts(const NodeModel& model, std::vector<NodeVerdict>& out) {
  not_p2p_verdict(model, out);
  switch_through_cpu_verdict(model, out);
  slower_than_staging_verdict(model, out);
  environment_verdict(model, out);
  version_verdicts(model, out);
}

}  // namespace k25
