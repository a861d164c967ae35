// Backend choice: --backend auto|nccl|mpi. auto takes nccl when CUDA devices are visible and the NCCL
// transport was built, else mpi; `reason` says which it took and why.
#pragma once

#include <memory>
#include <string>

#include "common/rank_context.hpp"
#include "config/run_config.hpp"
#include "transport/nccl_backend.hpp"
#include "transport/transport.hpp"
#include "transport/transport_options.hpp"

namespace k25 {

struct ChosenTransport {
  std::unique_ptr<Transport> transport;
  std::string reason;
};

// `nccl`: the NCCL backend the app linked (nccl::nccl_backend() or absent_nccl_backend()).
ChosenTransport make_transport(const RunConfig& config, const RankContext& context, const NcclBackend& nccl);

// What the transports take from the run's configuration.
TransportOptions transport_options(const RunConfig& config);

}  // namespace k25
