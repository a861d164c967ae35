// The AllReduce backends of a run: resolved against the transport, built, or said unavailable.
#include "transport/allreduce_contenders.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.hpp"
#include "transport/host_peer_allreduce.hpp"

namespace k25 {
namespace {

bool is_library(AllreduceBackend backend) {
  return backend == AllreduceBackend::nccl || backend == AllreduceBackend::mpi;
}

// Why a peer backend cannot run among these ranks at all, whatever the transport; empty where it can.
std::string peer_problem(const RankContext& context) {
  if (context.size() > kMaxPeerRanks)
    return fmt::format("{} ranks: the peer backends run at most {} (one buffer slot and flag per rank)",
                       context.size(), kMaxPeerRanks);
  if (context.host_count() > 1)
    return fmt::format(
        "the ranks run on {} hosts: a peer backend needs every rank's buffer mapped by every other, so every rank on one host",
        context.host_count());
  return {};
}

PeerAllreduceOptions peer_options(const RunConfig& config, AllreduceBackend backend) {
  PeerAllreduceOptions options;
  options.algorithm = backend;
  options.max_op_bytes = static_cast<std::size_t>(config.transport.peer_max_bytes);
  options.timeout_s = config.transport.timeout_s;
  options.in_place = config.sweep.in_place;
  options.epilogue = config.sweep.allreduce_epilogue != AllreduceEpilogue::none;
  options.leave_out_own_input = config.transport.inject_wrong == to_string(backend);
  return options;
}

}  // namespace

AllreduceBackend own_backend(const Transport& transport) {
  return transport.name() == "nccl" ? AllreduceBackend::nccl : AllreduceBackend::mpi;
}

std::vector<AllreduceContender> make_allreduce_contenders(const RunConfig& config, Transport& transport,
                                                          const RankContext& context,
                                                          const NcclBackend& nccl) {
  const AllreduceBackend own = own_backend(transport);
  std::vector<AllreduceBackend> asked = config.sweep.allreduce_backends;
  if (asked.empty()) asked = {own};
  const std::string& wrong = config.transport.inject_wrong;
  if (!wrong.empty()) {
    const auto named = enum_from_name<AllreduceBackend>(wrong);
    if (!named || is_library(*named) || std::find(asked.begin(), asked.end(), *named) == asked.end())
      throw UsageError(fmt::format(
          "--inject-wrong {}: name a peer backend (oneshot, twoshot, oneshot-pull) that --allreduce-backends runs",
          wrong));
  }
  std::vector<AllreduceContender> contenders;
  for (const AllreduceBackend backend : asked) {
    AllreduceContender contender;
    contender.backend = backend;
    if (is_library(backend)) {
      if (backend != own)
        throw UsageError(fmt::format(
            "--allreduce-backends {}: {} is the {} transport's collective, and this run is on the {} transport (its own is {}); name {} instead",
            to_string(backend), to_string(backend), backend == AllreduceBackend::nccl ? "nccl" : "host (mpi)",
            transport.name(), to_string(own), to_string(own)));
      contender.transport = &transport;
      contender.own = true;
      contenders.push_back(std::move(contender));
      continue;
    }
    contender.unavailable = peer_problem(context);
    if (contender.unavailable.empty()) {
      if (own == AllreduceBackend::mpi) {
        contender.owned =
            std::make_unique<HostPeerAllreduce>(transport, peer_options(config, backend), context);
      } else {
        PeerBackendChoice choice =
            nccl.make_peer_allreduce(transport, peer_options(config, backend), context);
        contender.owned = std::move(choice.transport);
        contender.unavailable = std::move(choice.unavailable);
      }
    }
    contender.transport = contender.owned.get();
    contenders.push_back(std::move(contender));
  }
  return contenders;
}

}  // namespace k25
