// `k25comm --version`: the facts of this build (build_info.hpp) and the NCCL the process runs.
#include "app/version_text.hpp"

#include <dlfcn.h>

#include <vector>

#include <fmt/format.h>

#include "build_info.hpp"

namespace k25 {

std::string cuda_architectures_text(std::string_view cmake_list) {
  if (cmake_list.empty()) return "none (built without CUDA/NCCL)";
  std::vector<std::string> device, ptx, other;
  while (!cmake_list.empty()) {
    const std::size_t end = cmake_list.find(';');
    const std::string_view entry = cmake_list.substr(0, end);
    cmake_list.remove_prefix(end == std::string_view::npos ? cmake_list.size() : end + 1);
    if (entry.empty()) continue;
    const std::size_t dash = entry.find('-');
    const std::string number(entry.substr(0, dash));
    const std::string_view kind = dash == std::string_view::npos ? "" : entry.substr(dash + 1);
    if (number.find_first_not_of("0123456789") != std::string::npos) {
      other.emplace_back(entry);  // "all", "native": CMake chose them at build time
    } else {
      if (kind != "virtual") device.push_back("sm_" + number);
      if (kind != "real") ptx.push_back("compute_" + number);
    }
  }
  std::string text;
  if (!device.empty()) text = fmt::format("device code {}", fmt::join(device, ", "));
  if (!ptx.empty())
    text += fmt::format("{}PTX {} (compiled at load on newer GPUs)", text.empty() ? "" : "; ",
                        fmt::join(ptx, ", "));
  if (!other.empty()) text += fmt::format("{}CMake's '{}'", text.empty() ? "" : "; ", fmt::join(other, ";"));
  return text;
}

std::string loaded_nccl_version() {
  using GetVersion = int (*)(int*);  // ncclResult_t ncclGetVersion(int*): ncclSuccess is 0
  const auto get = reinterpret_cast<GetVersion>(dlsym(RTLD_DEFAULT, "ncclGetVersion"));
  int code = 0;
  if (get == nullptr || get(&code) != 0 || code <= 0) return {};
  // NCCL_VERSION_CODE since 2.9: major * 10000 + minor * 100 + patch
  return fmt::format("{}.{}.{}", code / 10000, code / 100 % 100, code % 100);
}

std::string version_text() {
  const std::string nccl = loaded_nccl_version();
  return fmt::format("k25comm {} ({})\nCUDA kernels: {}\nNCCL: {}", kVersion, git_sha(),
                     cuda_architectures_text(kCudaArchitectures),
                     nccl.empty()
                         ? "no NCCL transport"
                         : fmt::format("{} at run time (built against {})", nccl, kNcclBuildVersion));
}

}  // namespace k25
