// One-line reads of sysfs attribute files.
#include "topology/sysfs_text.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>

namespace k25 {

std::string read_first_line(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  if (in) std::getline(in, line);
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  return line;
}

std::string to_lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

}  // namespace k25
