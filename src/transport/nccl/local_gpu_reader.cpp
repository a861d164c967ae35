// The CUDA runtime's view of this rank's GPU for the topology probe: bus id, name, peer access, NCCL version.
#include "transport/nccl/local_gpu_reader.hpp"

#include <array>
#include <cctype>
#include <cstdio>

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>

#include "transport/nccl/device_selection.hpp"

namespace k25::nccl {
namespace {

// cudaDeviceGetPCIBusId writes "0000:3B:00.0"; sysfs and NVML comparisons want lower case.
std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

LocalGpu read_local_gpu(const RankContext&, int device) {
  LocalGpu gpu;
  const int devices = visible_device_count();
  if (device < 0 || device >= devices) return gpu;
  gpu.present = true;
  gpu.cuda_index = device;
  for (int d = 0; d < devices; ++d) {
    std::array<char, 32> bus{};
    gpu.visible_bus_ids.push_back(
        cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), d) == cudaSuccess ? lower(bus.data())
                                                                                          : std::string());
  }
  gpu.bus_id = gpu.visible_bus_ids[static_cast<std::size_t>(device)];
  cudaDeviceProp props{};
  if (cudaGetDeviceProperties(&props, device) == cudaSuccess) {
    gpu.name = props.name;
    gpu.compute_major = props.major;
    gpu.compute_minor = props.minor;
  }
  gpu.peer_access.assign(static_cast<std::size_t>(devices), 0);
  for (int peer = 0; peer < devices; ++peer) {
    int can = 0;
    if (peer == device)
      can = 1;
    else if (cudaDeviceCanAccessPeer(&can, device, peer) != cudaSuccess)
      can = 0;
    gpu.peer_access[static_cast<std::size_t>(peer)] = can;
  }
  int version = 0;
  if (ncclGetVersion(&version) == ncclSuccess) {
    // NCCL_VERSION_CODE since 2.9: major * 10000 + minor * 100 + patch
    gpu.nccl_version = fmt::format("{}.{}.{}", version / 10000, version / 100 % 100, version % 100);
  }
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0)
    gpu.cuda_driver_version = fmt::format("{}.{}", driver / 1000, driver % 1000 / 10);
  (void)cudaGetLastError();
  return gpu;
}

}  // namespace k25::nccl
