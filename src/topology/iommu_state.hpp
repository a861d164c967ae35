// The IOMMU's mode on a host, from sysfs (/sys/kernel/iommu_groups and each group's `type`) and the kernel's
// command line (/proc/cmdline), read from a root path.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace k25 {

struct IommuState {
  // "off": no IOMMU groups (DMA goes straight to physical addresses); "passthrough": groups of type
  // "identity" (iommu=pt: DMA is not translated); "translated": groups of type "DMA" or "DMA-FQ" (every DMA,
  // peer traffic included, goes through the IOMMU's page tables); "unknown": sysfs could not tell (older
  // kernels have no `type` and the command line says nothing).
  std::string mode = "unknown";
  int groups = 0;                  // folders under /sys/kernel/iommu_groups
  std::vector<std::string> types;  // the distinct group types seen, sorted
  std::string cmdline_words;  // the IOMMU words of /proc/cmdline ("intel_iommu=on iommu=pt"), space-joined
  std::string evidence;       // one sentence: what the mode was read from
};

// `gpu_types`: the `type` of the GPUs' own groups (empty strings where unknown): where the GPUs' groups are
// known, they decide the mode, since a host can give other devices other types.
IommuState read_iommu_state(const std::filesystem::path& root, const std::vector<std::string>& gpu_types);

}  // namespace k25
