// Per-direction bandwidth limits of GPU links, by PCIe generation and width and by NVLink generation and link
// count, so that the report can give a result's bus bandwidth as a fraction of what the link can carry.
#pragma once

#include <optional>
#include <string>

#include "topology/topology_info.hpp"

namespace k25 {

// PCIe, one direction, after line encoding: GT/s x lanes x encoding / 8. Gen1-2 8b/10b, Gen3-5 128b/130b,
// Gen6 FLIT mode (242/256). Gen5 x16: 63.0 GB/s. Unknown generation or width: nullopt.
std::optional<double> pcie_limit_gbps(int generation, int width);

// NVLink, one direction: active links x per-link rate (Gen1 20 GB/s; Gen2-4 25 GB/s; Gen5 50 GB/s).
// NVLink 4 x18 (H100/H200 SXM): 450 GB/s. Unknown generation or no links: nullopt.
std::optional<double> nvlink_limit_gbps(int generation, int links);

// The limit of one GPU's link to its peers: NVLink where it has active links, else its PCIe link at the best
// generation and width the system allows (the current link may be down-trained while the GPU idles).
std::optional<double> link_limit_gbps(const GpuInfo& gpu);

// NVLink generation of a GPU family by CUDA compute capability major version (6: 1, 7: 2, 8: 3, 9: 4, 10: 5);
// 0 where unknown. Preferred over NVML's nvmlDeviceGetNvLinkVersion, whose encoding has changed between
// drivers.
int nvlink_generation_for_compute(int compute_major);

// NVLink generation from NVML's nvmlNvlinkVersion_t (1: 1.0, 2: 2.0, 3: 2.2, 4: 3.0, 5: 3.1, 6: 4.0, 7: 5.0).
int nvlink_generation_from_nvml(unsigned nvml_version);

// PCIe generation of a link speed in GT/s as sysfs writes it ("32.0 GT/s PCIe", "8 GT/s"); 0 where unknown.
int pcie_generation_of_speed(const std::string& speed_text);

}  // namespace k25
