// The text of sysfs attribute files, which hold one value on one line, and the lower case bus ids are
// compared in.
#pragma once

#include <filesystem>
#include <string>

namespace k25 {

// The first line of `file` without trailing white space; empty where the file cannot be read.
std::string read_first_line(const std::filesystem::path& file);

// `text` in ASCII lower case ("0000:4F:00.0" -> "0000:4f:00.0").
std::string to_lower(std::string text);

}  // namespace k25
