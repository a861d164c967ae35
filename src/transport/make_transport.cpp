// Chooses the transport for --backend auto|nccl|mpi and says why.
#include "transport/make_transport.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "transport/mpi_transport.hpp"
#include "transport/nccl_availability.hpp"

namespace k25 {

ChosenTransport make_transport(const RunConfig& config, const RankContext& context) {
  const Backend backend = config.transport.backend;
  if (backend == Backend::mpi)
    return {std::make_unique<MpiTransport>(config, context), "mpi: asked for with --backend mpi"};
  const bool built = nccl_transport_built();
  // Every rank must take the same transport: use the fewest devices any rank sees, and whether every host has a
  // GPU for each of its ranks.
  const int local_devices = built ? visible_cuda_devices() : 0;
  const int local_facts[2] = {local_devices, local_devices >= context.local_size() ? 1 : 0};
  int facts[2] = {0, 0};
  K25_MPI_CHECK(MPI_Allreduce(local_facts, facts, 2, MPI_INT, MPI_MIN, context.world()));
  const int devices = facts[0];
  const bool gpu_per_rank = facts[1] == 1;
  if (backend == Backend::nccl) {
    if (!built)
      throw UsageError("--backend nccl: this k25comm was built without CUDA/NCCL (rebuild where both are found)");
    if (devices == 0) throw RuntimeFault("--backend nccl: no CUDA device is visible on " + context.host());
    return {make_nccl_transport(config, context),
            fmt::format("nccl: asked for with --backend nccl ({} CUDA devices visible)", devices)};
  }
  const auto host_transport = [&](const std::string& why) {
    return ChosenTransport{std::make_unique<MpiTransport>(config, context), "mpi: auto, and " + why};
  };
  if (!built) return host_transport("the NCCL transport was not built");
  if (devices == 0) return host_transport("no CUDA device is visible");
  if (!gpu_per_rank)
    return host_transport(fmt::format("a host has more ranks than its {} visible CUDA devices (nccl needs one GPU "
                                      "per rank; --backend nccl to insist)",
                                      devices));
  return {make_nccl_transport(config, context),
          fmt::format("nccl: auto, NCCL transport built and at least {} CUDA devices visible on every rank",
                      devices)};
}

}  // namespace k25
