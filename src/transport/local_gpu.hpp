// What the CUDA runtime says about the GPU this rank drives under the nccl transport: read by the NCCL
// backend (NcclBackend::read_local_gpu), used by the topology probe. Plain data, no CUDA headers.
#pragma once

#include <string>
#include <vector>

namespace k25 {

struct LocalGpu {
  bool present = false;
  int cuda_index = -1;  // device index in this process (after CUDA_VISIBLE_DEVICES)
  std::string bus_id;   // PCI bus id as sysfs writes it: "0000:3b:00.0" (lower case, 4-digit domain)
  std::string name;     // e.g. "NVIDIA H200"
  int compute_major = 0, compute_minor = 0;
  // Over the devices this process sees: visible_bus_ids[d] is device d's bus id, peer_access[d] = 1 where
  // this GPU can access device d directly (1 for itself).
  std::vector<std::string> visible_bus_ids;
  std::vector<int> peer_access;
  std::string nccl_version;         // runtime NCCL version, e.g. "2.28.9"
  std::string cuda_driver_version;  // e.g. "13.0" (cudaDriverGetVersion)
};

}  // namespace k25
