// Telling each input file's format by content and reading it with its reader.
#include "capture/readers/capture_inputs.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "capture/readers/file_bytes.hpp"
#include "capture/readers/huge_pages.hpp"
#include "capture/readers/input_formats.hpp"
#include "capture/readers/inspector_reader.hpp"
#include "capture/readers/kineto_queue.hpp"
#include "capture/readers/trace_runs.hpp"
#include "common/error.hpp"

namespace k25 {
namespace fs = std::filesystem;
namespace {

std::uint16_t remap(std::vector<std::string>& names, const std::string& name) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) return static_cast<std::uint16_t>(it - names.begin());
  names.push_back(name);
  return static_cast<std::uint16_t>(names.size() - 1);
}

}  // namespace

void append_records(InspectorCapture& into, InspectorCapture&& part) {
  const std::size_t file_offset = into.files.size();
  const auto stream_offset = static_cast<std::uint32_t>(into.streams.size());
  for (InputFile& f : part.files) into.files.push_back(std::move(f));
  for (RankStream& s : part.streams) {
    s.file += file_offset;
    into.streams.push_back(std::move(s));
  }
  std::vector<std::uint16_t> kind_map, source_map;
  for (const std::string& k : part.kinds) kind_map.push_back(remap(into.kinds, k));
  for (const std::string& t : part.timing_sources) source_map.push_back(remap(into.timing_sources, t));
  into.ops.reserve(into.ops.size() + part.ops.size());
  for (OpRecord op : part.ops) {
    op.stream += stream_offset;
    op.kind = kind_map[op.kind];
    op.timing_source = static_cast<std::uint8_t>(source_map[op.timing_source]);
    into.ops.push_back(op);
  }
  for (std::string& note : part.notes) into.notes.push_back(std::move(note));
}

namespace {

// One file with its format and whether it came from a folder.
struct Input {
  std::string path;
  InputFormat format;
  bool in_folder;
};

// A file given by name: read whatever its name, refused when of no known format or not a regular file.
Input named_file(const std::string& path, const fs::file_status& status) {
  // A pipe, <(...) or /dev/stdin: read whole twice (format, then content), which a stream cannot give.
  if (!fs::is_regular_file(status))
    throw UsageError(fmt::format("{}: cannot read: not a regular file", path));
  bool json_object = false;
  const std::optional<InputFormat> format = sniff_format(file_head_of(path), json_object);
  if (format) return {path, *format, false};
  // A JSON object of no known format: the trace reader says what it lacks.
  if (json_object) return {path, InputFormat::kineto, false};
  throw UsageError(fmt::format("{}: not {}", path, one_of_the_formats()));
}

// A folder's regular files in name order, those of no known format skipped with a note.
void folder_files(const std::string& path, std::vector<Input>& files, std::vector<std::string>& notes) {
  std::error_code ec;
  std::vector<std::string> entries;
  for (const auto& entry : fs::directory_iterator(path, ec))
    if (entry.is_regular_file(ec)) entries.push_back(entry.path().string());
  if (ec) throw UsageError(fmt::format("{}: cannot list: {}", path, ec.message()));
  std::sort(entries.begin(), entries.end());
  std::size_t taken = 0;
  for (const std::string& entry : entries) {
    bool json_object = false;
    const std::optional<InputFormat> format = sniff_format(file_head_of(entry), json_object);
    if (!format) {
      notes.push_back(fmt::format("skipped {}: not {}", entry, one_of_the_formats()));
      continue;
    }
    files.push_back({entry, *format, true});
    ++taken;
  }
  if (taken == 0) throw UsageError(fmt::format("{}: no {} in this directory", path, formats_list()));
}

// Every file with its format, in the order given (a folder's in name order).
std::vector<Input> input_files(const std::vector<std::string>& paths, std::vector<std::string>& notes) {
  std::vector<Input> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) throw UsageError(fmt::format("{}: no such file or directory", path));
    if (fs::is_directory(status))
      folder_files(path, files, notes);
    else
      files.push_back(named_file(path, status));
  }
  return files;
}

// Each file by its format family's reader; a host-only trace in a folder is skipped with a note (vLLM's
// frontend writes one beside the ranks'). Returns whether any Inspector file was read.
bool read_files(const std::vector<Input>& files, InspectorReader& inspector, CaptureInputs& inputs,
                std::vector<std::string>& notes) {
  std::vector<std::string> kineto_paths;
  for (const Input& input : files)
    if (input.format == InputFormat::kineto) kineto_paths.push_back(input.path);
  KinetoQueue kineto(std::move(kineto_paths));
  InputReaders readers{inspector, kineto, inputs.trace};
  for (const Input& input : files) {
    try {
      format_family(input.format).read(input.path, readers);
    } catch (const TraceWithoutGpuEvents& e) {
      if (!input.in_folder) throw;
      notes.push_back(fmt::format("skipped {}", e.what()));
    }
  }
  return readers.any_inspector;
}

}  // namespace

CaptureInputs read_capture_inputs(const std::vector<std::string>& paths) {
  std::vector<std::string> notes;
  const std::vector<Input> files = input_files(paths, notes);
  CaptureInputs inputs;
  // Room for every trace's GPU activities at once (a few hundred bytes of JSON each): the vector never grows
  // by copying the activities already read.
  std::uint64_t trace_bytes = 0;
  for (const Input& input : files)
    if (input.format == InputFormat::kineto) trace_bytes += file_bytes_hint(input.path);
  inputs.trace.activities.reserve(
      static_cast<std::size_t>(std::min<std::uint64_t>(trace_bytes / 256, 1u << 28)));
  prefer_huge_pages(inputs.trace.activities.data(), inputs.trace.activities.capacity() * sizeof(GpuActivity));
  InspectorReader inspector;
  const bool any_inspector = read_files(files, inspector, inputs, notes);
  if (!any_inspector && inputs.trace.empty())
    throw UsageError(fmt::format("{}: no trace with GPU events among the inputs", fmt::join(paths, ", ")));
  if (any_inspector) inputs.inspector = inspector.finish();
  for (std::string& note : notes) inputs.inspector.notes.push_back(std::move(note));
  if (!inputs.trace.empty()) check_trace_runs(inputs.trace);
  return inputs;
}

}  // namespace k25
