// NVML loaded at run time (dlopen libnvidia-ml.so.1): no build dependency, and absent NVML is not an error.
#pragma once

#include <memory>
#include <optional>
#include <string>

namespace k25 {

// What NVML says about one GPU. Zero / empty where NVML does not know or the GPU does not support the query.
struct NvmlGpu {
  std::string name;
  int pcie_gen = 0, pcie_width = 0;          // current link
  int pcie_gen_max = 0, pcie_width_max = 0;  // best the device and the system allow
  int nvlinks = 0;                           // links in state "active"
  unsigned nvlink_nvml_version = 0;          // nvmlNvlinkVersion_t of the first active link
  int compute_major = 0, compute_minor = 0;
};

// NVML's peer-to-peer status between two GPUs, one nvmlGpuP2PStatus_t per capability (0 OK, 1 chipset not
// supported, 2 GPU not supported, 3 IOH topology not supported, 4 disabled by regkey, 5 not supported, 6
// unknown); -1 where NVML did not answer.
struct NvmlP2p {
  int read = -1, write = -1, nvlink = -1, atomics = -1;
};

// nvidia-smi topo -p2p's words for an nvmlGpuP2PStatus_t: "OK", "chipset not supported", ...; "" for -1.
std::string nvml_p2p_words(int status);

class NvmlLibrary {
 public:
  // Loads and initializes NVML; nullptr where the library or nvmlInit_v2 is not available.
  static std::unique_ptr<NvmlLibrary> open();
  ~NvmlLibrary();  // nvmlShutdown, dlclose
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  // The GPU at PCI bus id "0000:3b:00.0" (either case); nullopt where NVML does not find it.
  std::optional<NvmlGpu> gpu(const std::string& bus_id) const;
  std::string driver_version() const;  // empty where unknown
  // nvmlSystemGetCudaDriverVersion_v2 as "12.8"; empty where unknown.
  std::string cuda_driver_version() const;
  // nvmlDeviceGetP2PStatus between the GPUs at two bus ids; nullopt where NVML finds either not.
  std::optional<NvmlP2p> p2p(const std::string& bus_a, const std::string& bus_b) const;

  struct Api;  // resolved entry points (defined in the .cpp)

 private:
  NvmlLibrary(void* handle, std::unique_ptr<Api> api);
  void* handle_;
  std::unique_ptr<Api> api_;
};

}  // namespace k25
