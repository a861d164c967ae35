// The format families' table: their names, how each is told by content and read.
#include "capture/readers/input_formats.hpp"

#include <cctype>
#include <stdexcept>

#include <fmt/format.h>

#include "capture/readers/file_bytes.hpp"
#include "capture/readers/inspector_reader.hpp"
#include "capture/readers/kineto_queue.hpp"
#include "capture/readers/nsys_reader.hpp"

namespace k25 {
namespace {

constexpr std::size_t kHeadBytes = 64 * 1024;

bool sniff_nsys(const FileHead& head) {
  return head.bytes.starts_with(std::string_view("SQLite format 3\0", 16));
}

bool sniff_inspector(const FileHead& head) {
  return head.json_first_line.find("\"inspector_output_format_version\"") != std::string_view::npos ||
         head.json_first_line.starts_with("{\"header\":");
}

bool sniff_kineto(const FileHead& head) {
  if (head.json_first_line.empty()) return false;
  for (const char* key :
       {"\"traceEvents\"", "\"schemaVersion\"", "\"displayTimeUnit\"", "\"distributedInfo\""})
    if (head.bytes.find(key) != std::string::npos) return true;
  return false;
}

void read_inspector(const std::string& path, InputReaders& readers) {
  readers.inspector.add_path(path);
  readers.any_inspector = true;
}

void read_kineto(const std::string&, InputReaders& readers) {
  TraceCapture part = readers.kineto.next();
  append_trace(readers.trace, part);
  readers.kineto.give_back(std::move(part));
}

void read_nsys(const std::string& path, InputReaders& readers) {
  append_trace(readers.trace, read_nsys_file(path));
}

// "A, B or C".
std::string either(const std::vector<std::string>& items) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i)
    text += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
  return text;
}

}  // namespace

const std::vector<FormatFamily>& format_families() {
  static const std::vector<FormatFamily> kFamilies = {
      {InputFormat::inspector, "NCCL Inspector output", "NCCL Inspector logs",
       "NCCL's profiler plugin, one JSON object per line: every collective and P2P op with its size and GPU time",
       sniff_inspector, read_inspector},
      {InputFormat::kineto, "a profiler trace (Kineto JSON, plain or gzip)",
       "PyTorch profiler (Kineto) traces (JSON, plain or gzip)",
       "the torch profiler of vLLM, SGLang or any torch program: the whole GPU timeline", sniff_kineto,
       read_kineto},
      {InputFormat::nsys, "an Nsight Systems SQLite export", "Nsight Systems SQLite exports",
       "`nsys export --type sqlite` of an `nsys profile` run: the same timeline from nsys", sniff_nsys,
       read_nsys},
  };
  return kFamilies;
}

const FormatFamily& format_family(InputFormat format) {
  for (const FormatFamily& family : format_families())
    if (family.format == format) return family;
  throw std::logic_error("format_family: an input format without its row in the table");
}

FileHead file_head_of(const std::string& path) {
  FileHead head;
  head.bytes = file_head(path, kHeadBytes);
  std::size_t begin = head.bytes.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  while (begin < head.bytes.size() && std::isspace(static_cast<unsigned char>(head.bytes[begin]))) ++begin;
  if (begin < head.bytes.size() && head.bytes[begin] == '{')
    head.json_first_line = std::string_view(head.bytes).substr(begin, head.bytes.find('\n', begin) - begin);
  return head;
}

std::optional<InputFormat> sniff_format(const FileHead& head, bool& json_object) {
  json_object = !head.json_first_line.empty();
  for (const FormatFamily& family : format_families())
    if (family.sniff(head)) return family.format;
  return std::nullopt;
}

std::string one_of_the_formats() {
  std::vector<std::string> names;
  for (const FormatFamily& family : format_families()) names.push_back(family.one);
  return either(names);
}

std::string formats_list() {
  std::vector<std::string> names;
  for (const FormatFamily& family : format_families()) names.push_back(family.files);
  return either(names);
}

std::string input_formats_markdown() {
  std::string md;
  for (const FormatFamily& family : format_families())
    md += fmt::format("- **{}** (`{}`): {}.\n", family.files, to_string(family.format), family.from);
  return md;
}

}  // namespace k25
