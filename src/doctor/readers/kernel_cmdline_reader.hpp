// A kernel command line as pasted (`cat /proc/cmdline`, or GRUB_CMDLINE_LINUX from /etc/default/grub): its
// IOMMU and ACS words (iommu=, intel_iommu=, amd_iommu=, iommu.passthrough=, pcie_acs_override=, pci=noacs)
// and the IOMMU mode they ask for.
#pragma once

#include <string>
#include <vector>

#include "doctor/readers/pasted_text.hpp"

namespace k25 {

struct KernelCmdline {
  std::vector<std::string> words;  // the IOMMU and ACS words
  std::string mode;                // "passthrough", "off", "translated"; empty where they do not say
  FactSource source;
};

// Whether `text` holds a line that is a kernel command line (BOOT_IMAGE=, root=, GRUB_CMDLINE_LINUX, or a
// line of key=value words naming the IOMMU).
bool has_kernel_cmdline(const PastedText& text);

// The last such line of `text`.
KernelCmdline read_kernel_cmdline(const PastedText& text);

}  // namespace k25
