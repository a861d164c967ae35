// Shared files beside the running executable: an install's share/k25comm, or the source tree above a build
// directory.
#include "common/shared_files.hpp"

#include <system_error>

namespace k25 {

namespace fs = std::filesystem;

namespace {

// "/opt/k25/bin/.." -> "/opt/k25" (lexically_normal keeps a trailing separator there).
fs::path normal(const fs::path& path) {
  fs::path result = path.lexically_normal();
  if (!result.has_filename() && result.has_relative_path()) result = result.parent_path();
  return result;
}

}  // namespace

std::vector<fs::path> shared_file_roots(const fs::path& executable) {
  const fs::path bin = executable.parent_path();
  return {normal(bin / ".." / "share" / "k25comm"), normal(bin / "..")};
}

fs::path running_executable() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return exe;
}

std::vector<fs::path> shared_file_candidates(const fs::path& relative) {
  const fs::path exe = running_executable();
  if (exe.empty()) return {};
  std::vector<fs::path> candidates;
  for (const fs::path& root : shared_file_roots(exe)) candidates.push_back(root / relative);
  return candidates;
}

std::vector<fs::path> shared_file_lookup(const fs::path& relative) {
  std::vector<fs::path> candidates{relative};
  for (fs::path& candidate : shared_file_candidates(relative)) candidates.push_back(std::move(candidate));
  return candidates;
}

fs::path first_existing_file(const std::vector<fs::path>& candidates) {
  std::error_code ec;
  for (const fs::path& candidate : candidates)
    if (fs::is_regular_file(candidate, ec)) return candidate;
  return {};
}

}  // namespace k25
