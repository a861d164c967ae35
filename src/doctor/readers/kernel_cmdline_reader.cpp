// Finding the command line among other text and reading its IOMMU words.
#include "doctor/readers/kernel_cmdline_reader.hpp"

#include <algorithm>

#include "topology/iommu_state.hpp"

namespace k25 {
namespace {

// A line of kernel parameters: most of its words are key=value or bare flags, and it names the boot image,
// the root file system, GRUB's variable or the IOMMU.
bool is_cmdline(std::string_view line) {
  line = trimmed(line);
  if (line.size() < 6 || line.size() > 4096 || line.find("NCCL") != std::string_view::npos) return false;
  if (line.rfind("GRUB_CMDLINE_LINUX", 0) == 0) return true;
  const std::vector<std::string_view> words = words_of(line);
  const auto assignments = std::count_if(words.begin(), words.end(), [](std::string_view w) {
    return w.find('=') != std::string_view::npos && w.front() != '=';
  });
  const bool names_boot =
      line.find("BOOT_IMAGE=") != std::string_view::npos ||
      std::any_of(words.begin(), words.end(), [](std::string_view w) { return w.rfind("root=", 0) == 0; });
  const bool names_iommu = !iommu_words_of_cmdline(std::string(line)).empty();
  return (names_boot || names_iommu) && assignments * 2 >= static_cast<long>(words.size());
}

}  // namespace

bool has_kernel_cmdline(const PastedText& text) {
  return std::any_of(text.lines.begin(), text.lines.end(), is_cmdline);
}

KernelCmdline read_kernel_cmdline(const PastedText& text) {
  KernelCmdline cmdline;
  for (std::size_t i = 0; i < text.lines.size(); ++i) {
    if (!is_cmdline(text.lines[i])) continue;
    std::string line(trimmed(text.lines[i]));
    std::replace(line.begin(), line.end(), '"', ' ');  // GRUB_CMDLINE_LINUX="... iommu=pt"
    cmdline.words = iommu_words_of_cmdline(line);
    cmdline.mode = iommu_mode_of_cmdline(cmdline.words, true);
    cmdline.source = text.source(i);
  }
  return cmdline;
}

}  // namespace k25
