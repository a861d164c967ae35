// Decides the IOMMU mode from the group types sysfs shows and, where they say nothing, the command line.
#include "topology/iommu_state.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "topology/sysfs_text.hpp"

namespace k25 {
namespace {

namespace fs = std::filesystem;

bool is_iommu_word(const std::string& word) {
  return word.find("iommu") != std::string::npos || word.rfind("pcie_acs_override", 0) == 0 ||
         (word.rfind("pci=", 0) == 0 && word.find("acs") != std::string::npos);
}

// The mode one group type means; empty where the type says nothing about translation.
std::string mode_of_type(const std::string& type) {
  if (type == "identity") return "passthrough";
  if (type == "DMA" || type == "DMA-FQ") return "translated";
  return {};
}

}  // namespace

std::vector<std::string> iommu_words_of_cmdline(const std::string& cmdline) {
  std::vector<std::string> words;
  std::istringstream text(cmdline);
  for (std::string word; text >> word;)
    if (is_iommu_word(word)) words.push_back(word);
  return words;
}

std::string iommu_mode_of_cmdline(const std::vector<std::string>& words, bool on_means_translated) {
  std::string mode;
  for (const std::string& word : words) {  // later words override earlier ones, as the kernel reads them
    if (word == "iommu=pt" || word == "iommu.passthrough=1") mode = "passthrough";
    if (word == "iommu=off" || word == "intel_iommu=off" || word == "amd_iommu=off") mode = "off";
    if (word == "iommu.passthrough=0" || word == "iommu=nopt") mode = "translated";
    if (on_means_translated && (word == "intel_iommu=on" || word == "amd_iommu=on") && mode.empty())
      mode = "translated";
  }
  return mode;
}

IommuState read_iommu_state(const fs::path& root, const std::vector<std::string>& gpu_types) {
  IommuState state;
  const std::vector<std::string> words = iommu_words_of_cmdline(read_first_line(root / "proc/cmdline"));
  for (const std::string& word : words)
    state.cmdline_words += (state.cmdline_words.empty() ? "" : " ") + word;

  std::set<std::string> types;
  std::error_code ec;
  const fs::path groups = root / "sys/kernel/iommu_groups";
  const bool groups_folder = fs::is_directory(groups, ec);
  for (fs::directory_iterator it(groups, ec), end; groups_folder && !ec && it != end; it.increment(ec)) {
    ++state.groups;
    const std::string type = read_first_line(it->path() / "type");
    if (!type.empty()) types.insert(type);
  }
  state.types.assign(types.begin(), types.end());

  std::set<std::string> gpu_modes, gpu_distinct;
  for (const std::string& type : gpu_types) {
    if (type.empty()) continue;
    gpu_distinct.insert(type);
    if (!mode_of_type(type).empty()) gpu_modes.insert(mode_of_type(type));
  }
  std::set<std::string> any_modes;
  for (const std::string& type : types)
    if (!mode_of_type(type).empty()) any_modes.insert(mode_of_type(type));
  const std::string from_cmdline = iommu_mode_of_cmdline(words);
  const fs::path cmdline_file = root / "proc/cmdline";
  const std::string cmdline_said =
      !state.cmdline_words.empty()   ? fmt::format("kernel command line: {}", state.cmdline_words)
      : fs::exists(cmdline_file, ec) ? "no IOMMU word on the kernel command line"
                                     : fmt::format("no kernel command line ({})", cmdline_file.string());
  // Several groups of different types: the translated ones decide (they are the slow ones).
  const auto decide = [](const std::set<std::string>& modes) {
    return modes.count("translated") != 0 ? std::string("translated") : *modes.begin();
  };

  if (!fs::is_directory(root / "sys", ec)) {
    state.mode = "unknown";
    state.evidence = fmt::format("no sysfs under {}; {}", root.string(), cmdline_said);
  } else if (state.groups == 0) {
    state.mode = "off";  // no groups: nothing is translated, whatever the command line asks
    state.evidence =
        fmt::format("{}; {}",
                    groups_folder ? "no IOMMU groups in sysfs"
                                  : "sysfs has no kernel/iommu_groups (a kernel without IOMMU support)",
                    cmdline_said);
  } else if (!gpu_modes.empty()) {
    state.mode = decide(gpu_modes);
    state.evidence =
        fmt::format("the GPUs' IOMMU groups are of type {}; {}", fmt::join(gpu_distinct, ", "), cmdline_said);
  } else if (!any_modes.empty()) {
    state.mode = decide(any_modes);
    state.evidence = fmt::format("{} IOMMU groups of type {}; {}", state.groups, fmt::join(state.types, ", "),
                                 cmdline_said);
  } else {
    state.mode = from_cmdline.empty() ? "unknown" : from_cmdline;
    state.evidence = fmt::format("{} IOMMU groups without a type; {}", state.groups, cmdline_said);
  }
  return state;
}

}  // namespace k25
