// Link bandwidth table (PCIe by generation and width, NVLink by generation and link count) and version
// decoding.
#include "topology/link_limits.hpp"

#include <cmath>
#include <cstdlib>

namespace k25 {

std::optional<double> pcie_limit_gbps(int generation, int width) {
  if (width <= 0) return std::nullopt;
  double gigatransfers = 0.0, encoding = 0.0;
  switch (generation) {
    case 1:
      gigatransfers = 2.5;
      encoding = 8.0 / 10.0;
      break;
    case 2:
      gigatransfers = 5.0;
      encoding = 8.0 / 10.0;
      break;
    case 3:
      gigatransfers = 8.0;
      encoding = 128.0 / 130.0;
      break;
    case 4:
      gigatransfers = 16.0;
      encoding = 128.0 / 130.0;
      break;
    case 5:
      gigatransfers = 32.0;
      encoding = 128.0 / 130.0;
      break;
    case 6:
      gigatransfers = 64.0;
      encoding = 242.0 / 256.0;
      break;
    default:
      return std::nullopt;
  }
  return gigatransfers * width * encoding / 8.0;
}

std::optional<double> nvlink_limit_gbps(int generation, int links) {
  if (links <= 0) return std::nullopt;
  double per_link = 0.0;
  switch (generation) {
    case 1:
      per_link = 20.0;
      break;
    case 2:
    case 3:
    case 4:
      per_link = 25.0;
      break;
    case 5:
      per_link = 50.0;
      break;
    default:
      return std::nullopt;
  }
  return per_link * links;
}

std::optional<double> link_limit_gbps(const GpuInfo& gpu) {
  if (gpu.nvlinks > 0) return nvlink_limit_gbps(gpu.nvlink_version, gpu.nvlinks);
  const int generation = gpu.pcie_gen_max > 0 ? gpu.pcie_gen_max : gpu.pcie_gen;
  const int width = gpu.pcie_width_max > 0 ? gpu.pcie_width_max : gpu.pcie_width;
  return pcie_limit_gbps(generation, width);
}

int nvlink_generation_for_compute(int compute_major) {
  switch (compute_major) {
    case 6:
      return 1;
    case 7:
      return 2;
    case 8:
      return 3;
    case 9:
      return 4;
    case 10:
      return 5;
    default:
      return 0;
  }
}

int nvlink_generation_from_nvml(unsigned nvml_version) {
  switch (nvml_version) {
    case 1:
      return 1;
    case 2:
    case 3:
      return 2;
    case 4:
    case 5:
      return 3;
    case 6:
      return 4;
    case 7:
      return 5;
    default:
      return 0;
  }
}

int pcie_generation_of_speed(const std::string& speed_text) {
  const char* begin = speed_text.c_str();
  char* end = nullptr;
  const double rate = std::strtod(begin, &end);
  if (end == begin) return 0;
  const double known[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  for (int i = 0; i < 6; ++i)
    if (std::fabs(rate - known[i]) < 0.01) return i + 1;
  return 0;
}

}  // namespace k25
