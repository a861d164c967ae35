// Parses sysfs PCIe link attributes ("32.0 GT/s PCIe", "16") of a GPU and of its upstream bridge.
#include "topology/pcie_sysfs.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <system_error>

#include "topology/link_limits.hpp"

namespace k25 {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> read_line(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::string line;
  std::getline(in, line);
  return line;
}

int read_width(const fs::path& file) {
  const auto text = read_line(file);
  if (!text) return 0;
  try {
    return std::max(0, std::stoi(*text));
  } catch (const std::exception&) {
    return 0;
  }
}

int read_gen(const fs::path& file) {
  const auto text = read_line(file);
  return text ? pcie_generation_of_speed(*text) : 0;
}

// min over known values (0 = unknown)
int lower_known(int a, int b) {
  if (a == 0) return b;
  if (b == 0) return a;
  return std::min(a, b);
}

}  // namespace

std::optional<PcieLink> read_pcie_link(const std::string& bus_id, const fs::path& devices_root) {
  std::string name = bus_id;
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  const fs::path device = devices_root / name;
  if (!fs::exists(device / "current_link_speed")) return std::nullopt;
  PcieLink link;
  link.gen = read_gen(device / "current_link_speed");
  link.width = read_width(device / "current_link_width");
  link.gen_max = read_gen(device / "max_link_speed");
  link.width_max = read_width(device / "max_link_width");
  std::error_code ec;
  const fs::path real = fs::canonical(device, ec);
  if (!ec) {
    const fs::path bridge = real.parent_path();
    if (fs::exists(bridge / "max_link_speed", ec)) {
      link.gen_max = lower_known(link.gen_max, read_gen(bridge / "max_link_speed"));
      link.width_max = lower_known(link.width_max, read_width(bridge / "max_link_width"));
    }
  }
  return link;
}

std::string read_driver_version(const fs::path& module_file) {
  return read_line(module_file).value_or("");
}

}  // namespace k25
