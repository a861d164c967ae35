// Writes a whole file atomically: into a temporary file beside it, flushed to disk, then renamed over the
// target. A reader never sees a half-written report; on any failure the target is left as it was.
#pragma once

#include <string>
#include <string_view>

namespace k25 {

// Throws RuntimeFault naming the path and the failed call (open, write, fsync, rename).
void write_file_atomically(const std::string& path, std::string_view content);

// Creates `dir` and its parents; throws RuntimeFault with the reason when it cannot, or when it is not
// writable.
void ensure_writable_directory(const std::string& dir);

}  // namespace k25
