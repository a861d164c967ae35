// Where k25comm's shared files (configs/, tools/) are found: relative to the running executable, never at a
// path compiled into it.
#pragma once

#include <filesystem>
#include <vector>

namespace k25 {

// The folders that may hold the shared files of an executable at `executable`, in the order they are tried:
//   an install (cmake --install): PREFIX/bin/k25comm -> PREFIX/share/k25comm
//   a build directory in the source tree: SRC/build/k25comm -> SRC
// Both are lexically normal absolute paths when `executable` is absolute.
std::vector<std::filesystem::path> shared_file_roots(const std::filesystem::path& executable);

// The running executable (/proc/self/exe); empty when it cannot be read.
std::filesystem::path running_executable();

// Where `relative` (e.g. "configs/kimi.yaml") is looked for, in order: under each of the running executable's
// shared_file_roots. Empty when the executable cannot be read.
std::vector<std::filesystem::path> shared_file_candidates(const std::filesystem::path& relative);

// Where a shared file (a config, the kernel-class table) is looked up, in order: `relative` under the working
// directory, then shared_file_candidates(relative). One lookup for every shared file.
std::vector<std::filesystem::path> shared_file_lookup(const std::filesystem::path& relative);

// The first of `candidates` that is a regular file; empty when none is.
std::filesystem::path first_existing_file(const std::vector<std::filesystem::path>& candidates);

}  // namespace k25
