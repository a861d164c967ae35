// The verdicts of a node in their order, the headline, and what the rules share.
#include "doctor/verdicts/node_verdicts.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "doctor/verdicts/verdict_kinds.hpp"
#include "doctor/verdicts/verdict_rules.hpp"

namespace k25 {

std::string count_pairs(std::size_t count) {
  return fmt::format("{} GPU pair{}", count, count == 1 ? "" : "s");
}

std::string pair_list(const std::vector<const NodePair*>& pairs, std::size_t most) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < pairs.size() && i < most; ++i)
    names.push_back(fmt::format("{}-{}", pairs[i]->a, pairs[i]->b));
  std::string text = fmt::format("{}", fmt::join(names, ", "));
  if (pairs.size() > most) text += fmt::format(" and {} more", pairs.size() - most);
  return text;
}

void add_evidence(std::vector<FactSource>& evidence, const std::vector<FactSource>& more, std::size_t most) {
  for (const FactSource& source : more) {
    if (evidence.size() >= most) return;
    if (source.file.empty() || std::find(evidence.begin(), evidence.end(), source) != evidence.end())
      continue;
    evidence.push_back(source);
  }
}

int path_reach(PathClass path) {
  switch (path) {
    case PathClass::nvlink:
      return 1;
    case PathClass::same_switch:
      return 2;
    case PathClass::several_switches:
      return 3;
    case PathClass::host_bridge:
      return 4;
    case PathClass::across_host_bridges:
      return 5;
    default:
      return 6;
  }
}

bool p2p_possible(const NodeModel& model, const NodePair& pair) {
  if (!pair.p2p_read.empty() || !pair.p2p_write.empty())
    return pair.p2p_read == "OK" && pair.p2p_write == "OK";
  if (pair.nccl_route != PathClass::unknown && path_reach(pair.nccl_route) > path_reach(pair.path))
    return false;
  for (const Observation* said : observations_of(model, pair_subject(pair.a, pair.b), FactKind::pair_p2p))
    if (said->value != "OK") return false;
  return pair.path == PathClass::nvlink || pair.path == PathClass::same_switch ||
         pair.path == PathClass::several_switches || pair.path == PathClass::host_bridge;
}

std::vector<NodeVerdict> node_verdicts(const NodeModel& model) {
  std::vector<NodeVerdict> all;
  hardware_verdicts(model, all);
  nccl_verdicts(model, all);
  std::stable_sort(all.begin(), all.end(),
                   [](const NodeVerdict& a, const NodeVerdict& b) { return a.id < b.id; });
  return all;
}

std::vector<NodeVerdict> node_verdicts(const NodeFacts& facts) {
  NodeModel model;
  model.facts = facts;
  model.this_host = true;
  return node_verdicts(model);
}

NodeVerdict backend_rule_verdict(const std::string& note) {
  return verdict_of(VerdictId::backend_rule, note);
}

std::string node_headline(const NodeModel& model, const std::vector<NodeVerdict>& verdicts) {
  const NodeFacts& facts = model.facts;
  std::map<PathClass, int> classes;
  for (const NodePair& pair : facts.pairs) ++classes[pair.path];
  std::vector<std::string> parts;
  for (const auto& [path, count] : classes)
    parts.push_back(fmt::format("{} {}", count_pairs(static_cast<std::size_t>(count)),
                                path == PathClass::unknown ? "of unknown path" : path_class_words(path)));
  const bool all_nvlink =
      !facts.pairs.empty() && classes.size() == 1 && classes.count(PathClass::nvlink) == 1;
  const std::string host = !facts.host.empty() ? facts.host
                           : model.this_host   ? "this host"
                                               : "the inputs' node";
  std::string text = fmt::format("{}: {} GPU{}", host, facts.gpus.size(), facts.gpus.size() == 1 ? "" : "s");
  if (!facts.gpus.empty())
    text += fmt::format(", {}{}", all_nvlink ? "NVLink" : "PCIe",
                        parts.empty() ? "" : fmt::format(" ({})", fmt::join(parts, ", ")));
  std::vector<std::string> costs;
  for (const NodeVerdict& verdict : verdicts)
    if (verdict.severity == Severity::cost) {
      const std::string title = verdict_kind(verdict.id).title;
      if (std::find(costs.begin(), costs.end(), title) == costs.end()) costs.push_back(title);
    }
  text += costs.empty() ? "; no finding that costs"
                        : fmt::format("; {} finding{} that cost: {}", costs.size(),
                                      costs.size() == 1 ? "" : "s", fmt::join(costs, ", "));
  // The tag: NCCL through SHM or the network where P2P was possible.
  std::set<std::string> kinds;
  for (const NodePair& pair : facts.pairs) {
    if (!p2p_possible(model, pair) || pair.nccl_transports.empty()) continue;
    const bool any_p2p =
        std::any_of(pair.nccl_transports.begin(), pair.nccl_transports.end(),
                    [](const NcclPairTransport& t) { return t.kind == NcclTransportKind::p2p; });
    if (any_p2p) continue;
    for (const NcclPairTransport& transport : pair.nccl_transports)
      kinds.insert(transport.kind == NcclTransportKind::shm   ? "shared memory"
                   : transport.kind == NcclTransportKind::net ? "the network"
                                                              : transport.name);
  }
  if (!kinds.empty())
    text += fmt::format(" [NCCL through {} where P2P was possible]", fmt::join(kinds, " and "));
  return text;
}

std::string node_headline(const NodeFacts& facts, const std::vector<NodeVerdict>& verdicts) {
  NodeModel model;
  model.facts = facts;
  model.this_host = true;
  return node_headline(model, verdicts);
}

}  // namespace k25
