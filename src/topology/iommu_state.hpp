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

  bool operator==(const IommuState&) const = default;
};

// The words of a kernel command line that bear on the IOMMU and ACS (iommu=, intel_iommu=, amd_iommu=,
// iommu.passthrough=, pcie_acs_override=, pci=...acs...), in their order.
std::vector<std::string> iommu_words_of_cmdline(const std::string& cmdline);
// The mode those words ask for ("passthrough", "off", "translated"), the later word deciding as the kernel
// reads them; empty where they do not say. intel_iommu=on or amd_iommu=on without iommu=pt asks for
// "translated" only where `on_means_translated` (a pasted command line, where no group type can tell).
std::string iommu_mode_of_cmdline(const std::vector<std::string>& words, bool on_means_translated = false);

// `gpu_types`: the `type` of the GPUs' own groups (empty strings where unknown): where the GPUs' groups are
// known, they decide the mode, since a host can give other devices other types.
IommuState read_iommu_state(const std::filesystem::path& root, const std::vector<std::string>& gpu_types);

}  // namespace k25
