// Reads GPUs and the bridges above them from sysfs: each device's real path (/sys/devices/pci0000:00/...)
// names the bridges it hangs below, and each bridge's folder holds its link and its config space.
#include "topology/pci_tree.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <regex>
#include <system_error>

#include "topology/link_limits.hpp"
#include "topology/sysfs_text.hpp"

namespace k25 {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMostConfigBytes = 4096;

int number_in(const fs::path& file, int otherwise) {
  const std::string text = read_first_line(file);
  try {
    std::size_t used = 0;
    const int value = std::stoi(text, &used);
    return used == text.size() ? value : otherwise;
  } catch (const std::exception&) {
    return otherwise;
  }
}

std::vector<std::uint8_t> config_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::vector<std::uint8_t> bytes;
  if (!in) return bytes;
  bytes.resize(kMostConfigBytes);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return bytes;
}

PcieLink link_of(const fs::path& folder) {
  PcieLink link;
  link.gen = pcie_generation_of_speed(read_first_line(folder / "current_link_speed"));
  link.width = std::max(0, number_in(folder / "current_link_width", 0));
  link.gen_max = pcie_generation_of_speed(read_first_line(folder / "max_link_speed"));
  link.width_max = std::max(0, number_in(folder / "max_link_width", 0));
  return link;
}

PciNode node_at(const fs::path& folder, const std::string& bus_id) {
  PciNode node;
  node.bus_id = bus_id;
  node.vendor = to_lower(read_first_line(folder / "vendor"));
  node.device = to_lower(read_first_line(folder / "device"));
  node.pci_class = to_lower(read_first_line(folder / "class"));
  node.link = link_of(folder);
  node.config = parse_config_space(config_bytes(folder / "config"));
  return node;
}

bool is_nvidia_gpu(const PciNode& node) {
  // Display controllers: VGA (0x0300xx) and 3D (0x0302xx); an NVSwitch is a bridge (0x0680xx).
  return node.vendor == "0x10de" &&
         (node.pci_class.rfind("0x0300", 0) == 0 || node.pci_class.rfind("0x0302", 0) == 0);
}

// The last path component of a symlink's target ("../../../kernel/iommu_groups/17" -> "17").
std::string link_target_name(const fs::path& link) {
  std::error_code ec;
  const fs::path target = fs::read_symlink(link, ec);
  return ec ? std::string() : target.filename().string();
}

}  // namespace

bool is_pci_bus_id(const std::string& text) {
  static const std::regex bus_id("^[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]$");
  return std::regex_match(text, bus_id);
}

PciTree read_pci_tree(const fs::path& root) {
  PciTree tree;
  const fs::path devices = root / "sys/bus/pci/devices";
  std::error_code ec;
  if (!fs::is_directory(devices, ec)) return tree;
  tree.sysfs_found = true;
  std::vector<std::string> names;
  for (fs::directory_iterator it(devices, ec), end; !ec && it != end; it.increment(ec))
    names.push_back(to_lower(it->path().filename().string()));
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    if (!is_pci_bus_id(name)) continue;
    const fs::path entry = devices / name;
    PciNode node = node_at(entry, name);
    if (!is_nvidia_gpu(node)) continue;
    PciGpu gpu;
    gpu.node = std::move(node);
    gpu.numa_node = number_in(entry / "numa_node", -1);
    gpu.local_cpus = read_first_line(entry / "local_cpulist");
    gpu.iommu_group = link_target_name(entry / "iommu_group");
    if (!gpu.iommu_group.empty())
      gpu.iommu_type = read_first_line(root / "sys/kernel/iommu_groups" / gpu.iommu_group / "type");
    // The real folder: <root>/sys/devices/pci0000:00/0000:00:02.0/0000:03:00.0/.../<bus id>.
    const fs::path real = fs::canonical(entry, ec);
    const fs::path all_devices = fs::canonical(root / "sys/devices", ec);
    if (!ec) {
      fs::path folder = all_devices;
      for (const fs::path& part : real.lexically_relative(all_devices)) {
        folder /= part;
        const std::string text = to_lower(part.string());
        if (gpu.host_bridge.empty()) {
          if (text.rfind("pci", 0) == 0) gpu.host_bridge = text;
          continue;
        }
        if (!is_pci_bus_id(text) || text == name) continue;
        gpu.path.push_back(text);
        if (tree.bridges.count(text) == 0) tree.bridges.emplace(text, node_at(folder, text));
      }
    }
    ec.clear();
    tree.gpus.push_back(std::move(gpu));
  }
  return tree;
}

}  // namespace k25
