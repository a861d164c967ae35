// Rank-to-GPU mapping by node-local rank, with one clear error on every rank when a host runs more ranks than
// GPUs.
#include "transport/nccl/device_selection.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <string>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "common/error.hpp"
#include "transport/nccl/cuda_check.hpp"

namespace k25::nccl {

int visible_device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky "no device" error of the runtime
    return 0;
  }
  return count;
}

int select_cuda_device(const RankContext& context) {
  const int devices = visible_device_count();
  std::string problem;
  if (devices == 0)
    problem = fmt::format(
        "--backend nccl: host {} has no visible CUDA device (check the driver and "
        "CUDA_VISIBLE_DEVICES), or run with --backend mpi",
        context.host());
  else if (context.local_size() > devices)
    problem = fmt::format(
        "--backend nccl: host {} runs {} ranks but has {} visible CUDA device{}; NCCL needs one GPU "
        "per rank (two ranks on one GPU are refused): start at most {} rank{} per host, or run with "
        "--backend mpi",
        context.host(), context.local_size(), devices, devices == 1 ? "" : "s", devices,
        devices == 1 ? "" : "s");

  // The lowest rank with a problem tells everyone, so that all ranks stop with the same message before any of
  // them reaches NCCL (a rank that went on alone would wait in ncclCommInitRank until its timeout).
  const int mine = problem.empty() ? INT_MAX : context.rank();
  int first_bad = INT_MAX;
  K25_MPI_CHECK(MPI_Allreduce(&mine, &first_bad, 1, MPI_INT, MPI_MIN, context.world()));
  if (first_bad != INT_MAX) {
    std::array<char, 512> text{};
    if (context.rank() == first_bad) std::strncpy(text.data(), problem.c_str(), text.size() - 1);
    K25_MPI_CHECK(
        MPI_Bcast(text.data(), static_cast<int>(text.size()), MPI_CHAR, first_bad, context.world()));
    throw UsageError(text.data());
  }

  const int device = context.local_rank();
  K25_CUDA_CHECK(cudaSetDevice(device));
  return device;
}

}  // namespace k25::nccl
