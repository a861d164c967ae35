// Fallback reader of a GPU's PCIe link from Linux sysfs (/sys/bus/pci/devices/<bus id>/*_link_{speed,width})
// and of the NVIDIA driver version from /sys/module/nvidia/version, for where NVML cannot be loaded.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace k25 {

struct PcieLink {
  int gen = 0, width = 0;          // current
  int gen_max = 0, width_max = 0;  // best the device and its upstream port both allow
};

// Reads <devices_root>/<bus_id>/{current,max}_link_{speed,width}; the maximum is lowered to the upstream
// bridge's (the parent folder of the device's real path) where that folder has the same files. nullopt where
// the device folder or its current link files are missing. bus_id: "0000:3b:00.0" (upper case is accepted).
std::optional<PcieLink> read_pcie_link(const std::string& bus_id,
                                       const std::filesystem::path& devices_root = "/sys/bus/pci/devices");

// The loaded NVIDIA kernel module's version ("580.159.04"), or empty.
std::string read_driver_version(const std::filesystem::path& module_file = "/sys/module/nvidia/version");

}  // namespace k25
