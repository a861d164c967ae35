// The input files of a capture as capture.json lists them (capture.inputs), and the formats `k25comm capture`
// reads, named once: the key capture.json gives each input and the title capture.md lists it by. The readers'
// table of format families (capture/readers/input_formats) tells them apart and reads them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

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

// One input file and what was found in it.
struct InputFile {
  std::string path;
  InputFormat format = InputFormat::inspector;
  // Profiler traces: events (Kineto) or rows (nsys) read, GPU activities, kernels, step marks, graph
  // launches.
  std::uint64_t trace_events = 0, gpu_activities = 0, kernels = 0, step_marks = 0, graph_launches = 0;
  std::uint64_t lines = 0;  // non-empty lines
  std::uint64_t coll_records = 0, p2p_records = 0, dump_markers = 0, proxy_records = 0, other_records = 0;
  std::set<std::string> format_versions;
  bool cut = false;        // the file ends inside a record or a dump (a file still being written)
  std::string cut_reason;  // what was cut, for the notes
};

}  // namespace k25
