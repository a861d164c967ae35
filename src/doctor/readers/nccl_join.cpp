// NCCL's logs joined to the node's GPUs: each connection's two ranks matched to GPUs within their
// communicator, never by the rank alone.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "doctor/readers/gpu_identity.hpp"
#include "doctor/readers/node_builder.hpp"

namespace k25 {
namespace {

const NcclRankGpu* rank_in(const NcclSeen& seen, const std::string& communicator, int rank) {
  for (const NcclCommunicator& c : seen.communicators)
    if (c.key == communicator)
      for (const NcclRankGpu& r : c.ranks)
        if (r.rank == rank) return &r;
  return nullptr;
}

struct Match {
  int gpu = -1;
  std::string how;
  std::string host;
};

// The GPU of `rank` at the end of `connection` whose bracket is `bracket`.
Match match_rank(const NcclSeen& seen, const NcclRankConnection& connection, int rank,
                 const std::string& bracket, const GpuIdentity& gpus) {
  Match match;
  const NcclRankGpu* known = rank_in(seen, connection.communicator, rank);
  if (known != nullptr) match.host = known->host;
  if (known != nullptr && !known->bus_id.empty()) {
    match.gpu = gpus.by_bus(known->bus_id);
    match.how = "Init line";
  } else if (!bracket.empty() && bracket_is_bus_id(bracket)) {
    match.gpu = gpus.by_bus(bus_id_from_nccl(bracket));
    match.how = "busId in the channel line";
  } else {
    const int cuda = known != nullptr && known->cuda_dev >= 0 ? known->cuda_dev : small_number(bracket);
    bool assumed = false;
    match.gpu = cuda >= 0 ? gpus.by_cuda(cuda, &assumed) : -1;
    match.how = assumed ? "cudaDev as nvidia-smi's index" : "cudaDev";
  }
  return match;
}

void add_transport(NodePair& pair, const NcclPairTransport& transport) {
  if (std::none_of(pair.nccl_transports.begin(), pair.nccl_transports.end(),
                   [&](const NcclPairTransport& t) { return t.name == transport.name; }))
    pair.nccl_transports.push_back(transport);
}

void join_connections(const NcclLog& log, const std::string& host, const GpuIdentity& gpus, NodeModel& model,
                      std::set<std::string>& assumed, std::set<std::string>& unmatched,
                      std::set<std::string>& incomplete) {
  for (NcclRankConnection connection : log.seen.connections) {
    const Match from = match_rank(log.seen, connection, connection.from_rank, connection.from_device, gpus);
    const Match to = match_rank(log.seen, connection, connection.to_rank, connection.to_device, gpus);
    const bool other_host = (!from.host.empty() && !host.empty() && from.host != host) ||
                            (!to.host.empty() && !host.empty() && to.host != host) ||
                            (!from.host.empty() && !to.host.empty() && from.host != to.host);
    if (connection.communicator.rfind("no Init line", 0) == 0 ||
        connection.communicator == "(unprefixed lines)")
      incomplete.insert(connection.communicator);
    if (!other_host && from.gpu >= 0 && to.gpu >= 0 && from.gpu != to.gpu) {
      connection.gpu_a = from.gpu;
      connection.gpu_b = to.gpu;
      connection.matched_by = from.how == to.how ? from.how : from.how + " / " + to.how;
      if (from.how.find("nvidia-smi") != std::string::npos || to.how.find("nvidia-smi") != std::string::npos)
        assumed.insert(connection.communicator);
      if (NodePair* pair = find_pair(model.facts, from.gpu, to.gpu))
        add_transport(*pair, connection.transport);
    } else if (!other_host && connection.transport.kind != NcclTransportKind::net) {
      unmatched.insert(
          fmt::format("{} -> {} ({})", connection.from_rank, connection.to_rank, connection.communicator));
    }
    model.nccl.connections.push_back(std::move(connection));
  }
}

}  // namespace

void join_nccl_logs(const std::vector<NcclLog>& logs, const std::string& host, const GpuIdentity& gpus,
                    NodeModel& model) {
  NodeFacts& facts = model.facts;
  std::set<std::string> assumed, unmatched, incomplete;
  for (const NcclLog& log : logs) {
    facts.nccl.log_files.push_back(log.file);
    for (const NcclVersionSeen& version : log.seen.versions) {
      model.observations.push_back({kHostSubject, FactKind::nccl_version, version.version, version.source});
      if (std::none_of(model.nccl.versions.begin(), model.nccl.versions.end(),
                       [&](const NcclVersionSeen& v) { return v.version == version.version; }))
        model.nccl.versions.push_back(version);
    }
    for (const NcclSetting& setting : log.seen.settings) {
      model.nccl.settings.push_back(setting);
      const std::string words = fmt::format("{} set by environment to {}", setting.name, setting.value);
      if (std::find(facts.nccl.environment.begin(), facts.nccl.environment.end(), words) ==
          facts.nccl.environment.end())
        facts.nccl.environment.push_back(words);
    }
    for (const NcclCommunicator& communicator : log.seen.communicators)
      model.nccl.communicators.push_back(communicator);
    model.nccl.shared_memory.insert(model.nccl.shared_memory.end(), log.seen.shared_memory.begin(),
                                    log.seen.shared_memory.end());
    model.nccl.warnings.insert(model.nccl.warnings.end(), log.seen.warnings.begin(), log.seen.warnings.end());
    if (facts.cuda_driver_version.empty()) facts.cuda_driver_version = log.cuda_driver_version;
    join_connections(log, host, gpus, model, assumed, unmatched, incomplete);
    // "P2P is disabled between connected GPUs X and Y": CUDA devices of the printing process.
    for (const NcclP2pDisabled& disabled : log.p2p_disabled) {
      if (!disabled.host.empty() && !host.empty() && disabled.host != host) continue;
      const int a = gpus.by_cuda(disabled.dev_a), b = gpus.by_cuda(disabled.dev_b);
      if (NodePair* pair = a >= 0 && b >= 0 && a != b ? find_pair(facts, a, b) : nullptr)
        pair->nccl_p2p_disabled = true;
    }
    for (const NcclGraphPath& path : log.graph_paths) {
      const int a = gpus.by_bus(path.from_bus), b = gpus.by_bus(path.to_bus);
      NodePair* pair = a >= 0 && b >= 0 && a != b ? find_pair(facts, a, b) : nullptr;
      if (pair == nullptr || path.path == PathClass::unknown) continue;
      model.observations.push_back(
          {pair_subject(a, b), FactKind::pair_nccl_route, path_class_id(path.path), path.source});
      if (pair->nccl_route == PathClass::unknown) pair->nccl_route = path.path;
    }
  }
  if (!model.nccl.versions.empty()) {
    facts.nccl.version = model.nccl.versions.front().version;
    if (facts.nccl_version.empty()) facts.nccl_version = facts.nccl.version;
  }
  if (!assumed.empty())
    facts.nccl.notes.push_back(fmt::format(
        "{}: no line names the ranks' bus ids, so their cudaDev is taken as nvidia-smi's GPU index (true where CUDA_VISIBLE_DEVICES is unset and CUDA's order is the bus order)",
        fmt::join(assumed, ", ")));
  if (!incomplete.empty())
    facts.nccl.notes.push_back(fmt::format(
        "{}: channel lines without an Init line from their thread (a job that hung in init, or a paste without it): each pair's transport comes by rank",
        fmt::join(incomplete, ", ")));
  for (const NcclCommunicator& communicator : model.nccl.communicators)
    if (!communicator.complete)
      facts.nccl.notes.push_back(
          fmt::format("{}: its init never completed (Init START, no Init COMPLETE)", communicator.key));
  if (!unmatched.empty())
    facts.nccl.notes.push_back(
        fmt::format("NCCL connections by rank not matched to GPUs (no line names their GPUs): {}",
                    fmt::join(unmatched, ", ")));
}

}  // namespace k25
