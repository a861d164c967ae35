// One way to read a whole input file into memory, with one set of refusals.
#include "common/whole_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/error.hpp"

namespace k25 {

std::string read_whole_file(const std::string& path, std::uintmax_t most_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::none)  // stat itself failed: a folder on the way not searchable, ...
    throw UsageError(fmt::format("{}: cannot be read: {}", path, ec.message()));
  if (!fs::exists(status)) throw UsageError(fmt::format("{}: no such file or directory", path));
  if (fs::is_directory(status)) throw UsageError(fmt::format("{}: a folder, not a file", path));
  if (!fs::is_regular_file(status)) throw UsageError(fmt::format("{}: not a regular file", path));
  if (most_bytes > 0 && fs::file_size(path, ec) > most_bytes)
    throw UsageError(fmt::format("{}: larger than {} MiB", path, most_bytes >> 20));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("{}: cannot be read: {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw UsageError(fmt::format("{}: read error", path));
  return text.str();
}

}  // namespace k25
