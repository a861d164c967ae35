// Rank-to-GPU placement with the CUDA runtime's device count and bus ids, checked over the host's ranks.
#include "transport/nccl/device_selection.hpp"

#include <mpi.h>

#include <array>
#include <cctype>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "common/error.hpp"
#include "common/first_problem.hpp"

namespace k25::nccl {
namespace {

constexpr int kBusIdChars = 32;

std::string bus_id_of(int device) {
  std::array<char, kBusIdChars> bus{};
  if (cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), device) != cudaSuccess) {
    (void)cudaGetLastError();
    return {};
  }
  std::string text(bus.data());
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

int visible_device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky "no device" error of the runtime
    return 0;
  }
  return count;
}

DevicePlacement choose_local_device(const RankContext& context, bool emulate_ranks) {
  DevicePlacement placement = place_rank_on_device(context.local_rank(), context.local_size(),
                                                   visible_device_count(), emulate_ranks, context.host());
  // Every rank of the host shares its bus id and its problem, so that all of them agree.
  std::array<char, kBusIdChars> mine{};
  if (placement.problem.empty()) {
    const std::string bus = bus_id_of(placement.device);
    bus.copy(mine.data(), mine.size() - 1);
  }
  std::vector<char> all(static_cast<std::size_t>(context.local_size()) * kBusIdChars);
  K25_MPI_CHECK(
      MPI_Allgather(mine.data(), kBusIdChars, MPI_CHAR, all.data(), kBusIdChars, MPI_CHAR, context.node()));
  if (std::string problem = first_problem(context.node(), placement.problem); !problem.empty())
    return {-1, std::move(problem)};
  if (!emulate_ranks) {
    std::vector<std::string> bus_ids;
    for (int r = 0; r < context.local_size(); ++r) bus_ids.emplace_back(all.data() + r * kBusIdChars);
    if (std::string shared = shared_gpu_problem(bus_ids, context.host()); !shared.empty())
      placement = {-1, std::move(shared)};
  }
  return placement;
}

}  // namespace k25::nccl
