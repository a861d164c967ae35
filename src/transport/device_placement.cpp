// Rank-to-GPU rules: node-local rank, a scheduler's one-GPU-per-rank binding, or the emulated-ranks test
// mode.
#include "transport/device_placement.hpp"

#include <map>

#include <fmt/format.h>

namespace k25 {

DevicePlacement place_rank_on_device(int local_rank, int local_size, int visible_devices, bool emulate_ranks,
                                     const std::string& host) {
  if (visible_devices <= 0)
    return {-1, fmt::format("host {} has no visible CUDA device (check the driver and CUDA_VISIBLE_DEVICES)",
                            host)};
  if (emulate_ranks) return {local_rank % visible_devices, {}};
  if (visible_devices == 1) return {0, {}};
  if (local_rank < visible_devices && local_size <= visible_devices) return {local_rank, {}};
  return {
      -1,
      fmt::format(
          "host {} runs {} ranks but has {} visible CUDA devices; NCCL needs one GPU per rank (two ranks on one GPU are refused): start at most {} ranks per host",
          host, local_size, visible_devices, visible_devices)};
}

std::string shared_gpu_problem(const std::vector<std::string>& bus_ids, const std::string& host) {
  std::map<std::string, int> first_rank_of;
  for (std::size_t rank = 0; rank < bus_ids.size(); ++rank) {
    const std::string& bus = bus_ids[rank];
    if (bus.empty()) continue;
    const auto [found, inserted] = first_rank_of.emplace(bus, static_cast<int>(rank));
    if (inserted) continue;
    return fmt::format(
        "host {} runs {} ranks but local ranks {} and {} would both drive GPU {}; NCCL needs one GPU per rank (two ranks on one GPU are refused): give each rank its own device (CUDA_VISIBLE_DEVICES per rank, Slurm --gpus-per-task=1), or start fewer ranks",
        host, bus_ids.size(), found->second, rank, bus);
  }
  return {};
}

std::string nccl_refusal(const std::string& problem) {
  return "--backend nccl: " + problem + "; or run with --backend mpi";
}

}  // namespace k25
