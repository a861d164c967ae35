// Classifies the PCIe path between two GPUs by where their chains of bridges meet.
#include "topology/gpu_paths.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace k25 {
namespace {

struct PathName {
  PathClass path;
  const char* id;
  const char* words;
  const char* abbreviation;
};

constexpr std::array<PathName, 7> kPathNames = {{
    {PathClass::nvlink, "nvlink", "NVLink", "NV#"},
    {PathClass::same_switch, "same_switch", "same PCIe switch", "PIX"},
    {PathClass::several_switches, "several_switches", "several PCIe switches", "PXB"},
    {PathClass::host_bridge, "host_bridge", "through the host bridge (CPU)", "PHB"},
    {PathClass::across_host_bridges, "across_host_bridges", "across host bridges of one NUMA node", "NODE"},
    {PathClass::across_sockets, "across_sockets", "across CPU sockets", "SYS"},
    {PathClass::unknown, "unknown", "unknown", "?"},
}};

const PathName& name_of(PathClass path) {
  for (const PathName& name : kPathNames)
    if (name.path == path) return name;
  return kPathNames.back();
}

}  // namespace

std::string path_class_id(PathClass path) {
  return name_of(path).id;
}
std::string path_class_words(PathClass path) {
  return name_of(path).words;
}
std::string path_class_abbreviation(PathClass path) {
  return name_of(path).abbreviation;
}

PathClass path_class_from_id(const std::string& id) {
  for (const PathName& name : kPathNames)
    if (id == name.id) return name.path;
  return PathClass::unknown;
}

PathClass path_class_from_word(const std::string& word, int* nvlinks) {
  if (word.size() > 2 && word.rfind("NV", 0) == 0 &&
      std::all_of(word.begin() + 2, word.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (nvlinks != nullptr && word.size() < 6) *nvlinks = std::stoi(word.substr(2));
    return PathClass::nvlink;
  }
  static const std::array<std::pair<const char*, PathClass>, 8> kWords = {{
      {"NVL", PathClass::nvlink},
      {"NVB", PathClass::nvlink},
      {"PIX", PathClass::same_switch},
      {"PXB", PathClass::several_switches},
      {"PHB", PathClass::host_bridge},
      {"NODE", PathClass::across_host_bridges},
      {"SYS", PathClass::across_sockets},
      {"SOC", PathClass::across_sockets},
  }};
  for (const auto& [name, path] : kWords)
    if (word == name) return path;
  return PathClass::unknown;
}

PciePath pcie_path(const PciGpu& a, const PciGpu& b) {
  PciePath result;
  if (a.host_bridge.empty() || b.host_bridge.empty()) return result;
  if (a.host_bridge != b.host_bridge) {
    result.bridges = a.path;
    result.bridges.insert(result.bridges.end(), b.path.rbegin(), b.path.rend());
    result.path = a.numa_node >= 0 && b.numa_node >= 0 && a.numa_node != b.numa_node
                      ? PathClass::across_sockets
                      : PathClass::across_host_bridges;
    return result;
  }
  std::size_t common = 0;  // bridges both chains start with
  while (common < a.path.size() && common < b.path.size() && a.path[common] == b.path[common]) ++common;
  // Up from a to the turn (the last common bridge, where there is one), then down to b.
  for (std::size_t i = a.path.size(); i > common; --i) result.bridges.push_back(a.path[i - 1]);
  if (common > 0) result.bridges.push_back(a.path[common - 1]);
  for (std::size_t i = common; i < b.path.size(); ++i) result.bridges.push_back(b.path[i]);
  // Turning at the host bridge or at a root port (a root port has one link: both GPUs below it means a switch
  // below it is the real turn, so a root port as the turn is the host bridge's doing) goes through the CPU.
  if (common <= 1) {
    result.path = PathClass::host_bridge;
  } else {
    result.path = result.bridges.size() <= 3 ? PathClass::same_switch : PathClass::several_switches;
  }
  return result;
}

}  // namespace k25
