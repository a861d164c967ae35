// dlopen'ed NVML: resolves the few entry points the topology probe needs, declared here by their C signatures
// (nvmlReturn_t and enums are int-sized, nvmlDevice_t an opaque pointer) so that no NVML header is needed.
#include "topology/nvml_library.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace k25 {
namespace {

using NvmlReturn = int;    // nvmlReturn_t; NVML_SUCCESS = 0
using NvmlDevice = void*;  // nvmlDevice_t
constexpr NvmlReturn nvml_success = 0;
constexpr unsigned nvml_max_links = 18;  // NVML_NVLINK_MAX_LINKS

}  // namespace

struct NvmlLibrary::Api {
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  NvmlReturn (*driver_version)(char*, unsigned) = nullptr;
  NvmlReturn (*by_bus_id)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*name)(NvmlDevice, char*, unsigned) = nullptr;
  NvmlReturn (*curr_gen)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*curr_width)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*max_gen)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*max_width)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*link_state)(NvmlDevice, unsigned, int*) = nullptr;  // nvmlEnableState_t: 1 = enabled
  NvmlReturn (*link_version)(NvmlDevice, unsigned, unsigned*) = nullptr;
  NvmlReturn (*compute)(NvmlDevice, int*, int*) = nullptr;
  NvmlReturn (*cuda_driver)(int*) = nullptr;
  NvmlReturn (*p2p_status)(NvmlDevice, NvmlDevice, int, int*) = nullptr;  // nvmlGpuP2PCapsIndex_t, status
};

namespace {

template <typename Fn>
void resolve(void* handle, const char* symbol, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
}

int as_int(unsigned value) {
  return static_cast<int>(std::min<unsigned>(value, 1u << 20));
}

}  // namespace

std::unique_ptr<NvmlLibrary> NvmlLibrary::open() {
  void* handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return nullptr;
  auto api = std::make_unique<Api>();
  resolve(handle, "nvmlInit_v2", api->init);
  resolve(handle, "nvmlShutdown", api->shutdown);
  resolve(handle, "nvmlSystemGetDriverVersion", api->driver_version);
  resolve(handle, "nvmlDeviceGetHandleByPciBusId_v2", api->by_bus_id);
  resolve(handle, "nvmlDeviceGetName", api->name);
  resolve(handle, "nvmlDeviceGetCurrPcieLinkGeneration", api->curr_gen);
  resolve(handle, "nvmlDeviceGetCurrPcieLinkWidth", api->curr_width);
  resolve(handle, "nvmlDeviceGetMaxPcieLinkGeneration", api->max_gen);
  resolve(handle, "nvmlDeviceGetMaxPcieLinkWidth", api->max_width);
  resolve(handle, "nvmlDeviceGetNvLinkState", api->link_state);
  resolve(handle, "nvmlDeviceGetNvLinkVersion", api->link_version);
  resolve(handle, "nvmlDeviceGetCudaComputeCapability", api->compute);
  resolve(handle, "nvmlSystemGetCudaDriverVersion_v2", api->cuda_driver);
  resolve(handle, "nvmlDeviceGetP2PStatus", api->p2p_status);
  if (api->init == nullptr || api->shutdown == nullptr || api->by_bus_id == nullptr ||
      api->init() != nvml_success) {
    dlclose(handle);
    return nullptr;
  }
  return std::unique_ptr<NvmlLibrary>(new NvmlLibrary(handle, std::move(api)));
}

NvmlLibrary::NvmlLibrary(void* handle, std::unique_ptr<Api> api) : handle_(handle), api_(std::move(api)) {}

NvmlLibrary::~NvmlLibrary() {
  api_->shutdown();
  dlclose(handle_);
}

namespace {

// The NVML handle of the GPU at `bus_id`, tried as given and in upper case; nullptr where NVML has none.
NvmlDevice device_at(const NvmlLibrary::Api& api, const std::string& bus_id) {
  NvmlDevice device = nullptr;
  if (api.by_bus_id(bus_id.c_str(), &device) == nvml_success) return device;
  std::string upper = bus_id;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  return api.by_bus_id(upper.c_str(), &device) == nvml_success ? device : nullptr;
}

}  // namespace

std::string nvml_p2p_words(int status) {
  switch (status) {
    case 0:
      return "OK";
    case 1:
      return "chipset not supported";
    case 2:
      return "GPU not supported";
    case 3:
      return "topology not supported";
    case 4:
      return "disabled by regkey";
    case 5:
      return "not supported";
    case 6:
      return "unknown";
    default:
      return {};
  }
}

std::optional<NvmlGpu> NvmlLibrary::gpu(const std::string& bus_id) const {
  const NvmlDevice device = device_at(*api_, bus_id);
  if (device == nullptr) return std::nullopt;
  NvmlGpu gpu;
  std::array<char, 96> text{};
  if (api_->name != nullptr &&
      api_->name(device, text.data(), static_cast<unsigned>(text.size())) == nvml_success)
    gpu.name = text.data();
  const auto read = [&](NvmlReturn (*fn)(NvmlDevice, unsigned*), int& out) {
    unsigned value = 0;
    if (fn != nullptr && fn(device, &value) == nvml_success) out = as_int(value);
  };
  read(api_->curr_gen, gpu.pcie_gen);
  read(api_->curr_width, gpu.pcie_width);
  read(api_->max_gen, gpu.pcie_gen_max);
  read(api_->max_width, gpu.pcie_width_max);
  if (api_->link_state != nullptr) {
    for (unsigned link = 0; link < nvml_max_links; ++link) {
      int active = 0;
      if (api_->link_state(device, link, &active) != nvml_success) continue;  // not supported / no such link
      if (active != 1) continue;
      if (gpu.nvlinks++ == 0 && api_->link_version != nullptr) {
        unsigned version = 0;
        if (api_->link_version(device, link, &version) == nvml_success) gpu.nvlink_nvml_version = version;
      }
    }
  }
  if (api_->compute != nullptr) (void)api_->compute(device, &gpu.compute_major, &gpu.compute_minor);
  return gpu;
}

std::string NvmlLibrary::driver_version() const {
  std::array<char, 96> text{};
  if (api_->driver_version == nullptr ||
      api_->driver_version(text.data(), static_cast<unsigned>(text.size())) != nvml_success)
    return {};
  return text.data();
}

std::string NvmlLibrary::cuda_driver_version() const {
  int version = 0;
  if (api_->cuda_driver == nullptr || api_->cuda_driver(&version) != nvml_success || version <= 0) return {};
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::optional<NvmlP2p> NvmlLibrary::p2p(const std::string& bus_a, const std::string& bus_b) const {
  const NvmlDevice a = device_at(*api_, bus_a);
  const NvmlDevice b = device_at(*api_, bus_b);
  if (a == nullptr || b == nullptr) return std::nullopt;
  NvmlP2p status;
  if (api_->p2p_status == nullptr) return status;
  const auto ask = [&](int capability, int& out) {
    int answer = -1;
    if (api_->p2p_status(a, b, capability, &answer) == nvml_success && answer >= 0 && answer <= 6)
      out = answer;
  };
  ask(0, status.read);  // NVML_P2P_CAPS_INDEX_READ
  ask(1, status.write);
  ask(2, status.nvlink);
  ask(3, status.atomics);
  return status;
}

}  // namespace k25
