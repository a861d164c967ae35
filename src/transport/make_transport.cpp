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
  // Every rank must take the same transport: use the fewest devices any rank sees.
  const int local_devices = built ? visible_cuda_devices() : 0;
  int devices = 0;
  K25_MPI_CHECK(MPI_Allreduce(&local_devices, &devices, 1, MPI_INT, MPI_MIN, context.world()));
  if (backend == Backend::nccl) {
    if (!built)
      throw UsageError(
          "--backend nccl: this k25comm was built without CUDA/NCCL (rebuild where both are found)");
    if (devices == 0) throw RuntimeFault("--backend nccl: no CUDA device is visible on " + context.host());
    return {make_nccl_transport(config, context),
            fmt::format("nccl: asked for with --backend nccl ({} CUDA devices visible)", devices)};
  }
  if (!built)
    return {std::make_unique<MpiTransport>(config, context),
            "mpi: auto, and the NCCL transport was not built"};
  if (devices == 0)
    return {std::make_unique<MpiTransport>(config, context), "mpi: auto, and no CUDA device is visible"};
  return {make_nccl_transport(config, context),
          fmt::format("nccl: auto, NCCL transport built and at least {} CUDA devices visible on every rank",
                      devices)};
}

}  // namespace k25
