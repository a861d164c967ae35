// One way to read a whole input file (a report, a predict input, --gaps-from, doctor's inputs) into memory,
// with one set of refusals.
#pragma once

#include <cstdint>
#include <string>

namespace k25 {

// The bytes of the file at `path`. Refused with a UsageError "PATH: WHY" where it does not exist, is a
// folder, is not a regular file (a pipe would block), is larger than `most_bytes` (0: no limit), cannot be
// opened or fails while read.
std::string read_whole_file(const std::string& path, std::uintmax_t most_bytes = 0);

}  // namespace k25
