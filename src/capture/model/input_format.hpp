// The input formats `k25comm capture` reads, named once: the key capture.json gives each input and the title
// capture.md lists it by. The readers' table of format families (capture/readers/input_formats) tells them
// apart and reads them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace k25 {

enum class InputFormat : std::uint8_t { inspector, kineto, nsys };

struct InputFormatName {
  InputFormat format;
  const char* key;    // capture.json's inputs[].format: "kineto"
  const char* title;  // capture.md: "PyTorch profiler (Kineto)"
};
inline constexpr std::array<InputFormatName, 3> kInputFormatNames = {{
    {InputFormat::inspector, "inspector", "NCCL Inspector"},
    {InputFormat::kineto, "kineto", "PyTorch profiler (Kineto)"},
    {InputFormat::nsys, "nsys", "Nsight Systems SQLite"},
}};

inline const char* to_string(InputFormat format) {
  return kInputFormatNames[static_cast<std::size_t>(format)].key;
}
inline const char* format_title(InputFormat format) {
  return kInputFormatNames[static_cast<std::size_t>(format)].title;
}

}  // namespace k25
