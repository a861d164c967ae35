// The format families `k25comm capture` reads, one row each: what the files are called, how a file's first
// bytes tell its format (never its name) and how it is read. The refusals of files of no known format,
// `k25comm capture
// --help`'s list of formats and docs/capture.md's list are made from this table: a new trace format is one
// row and its reader.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/capture_input_file.hpp"
#include "capture/model/trace_model.hpp"

namespace k25 {

class InspectorReader;
class KinetoQueue;

// What reads a run's files: the Inspector's reader (every file, then finished once), the Kineto files' queue
// (two at once, in the order given), the trace capture the profiler traces go into.
struct InputReaders {
  InspectorReader& inspector;
  KinetoQueue& kineto;
  TraceCapture& trace;
  bool any_inspector = false;
};

// A file's first bytes, gunzipped where it is gzip.
struct FileHead {
  std::string bytes;
  std::string_view
      json_first_line;  // from its first '{' (after a BOM and spaces) to the line's end; empty when none
};

struct FormatFamily {
  InputFormat format;
  const char* one;    // in refusals, one file: "a profiler trace (Kineto JSON, plain or gzip)"
  const char* files;  // in lists: "PyTorch profiler (Kineto) traces, JSON plain or gzip"
  const char* from;   // what writes it: "the torch profiler of vLLM, SGLang or any torch program"
  bool (*sniff)(const FileHead& head);
  void (*read)(const std::string& path, InputReaders& readers);
};

// The families, in the order lists name them and a file's head is tried against them.
const std::vector<FormatFamily>& format_families();
const FormatFamily& format_family(InputFormat format);

// The first bytes of the file at `path` (gunzipped), for sniffing.
FileHead file_head_of(const std::string& path);

// The family whose sniff takes the head; nullopt when none does. `json_object` says whether it is a JSON
// object at all (read as a profiler trace when given by name, whose reader then says what it is not).
std::optional<InputFormat> sniff_format(const FileHead& head, bool& json_object);

// "NCCL Inspector output, a profiler trace (Kineto JSON, plain or gzip) or an Nsight Systems SQLite export".
std::string one_of_the_formats();
// "NCCL Inspector logs, PyTorch profiler (Kineto) traces (JSON, plain or gzip) or Nsight Systems SQLite
// exports".
std::string formats_list();
// docs/capture.md's list of the formats, one Markdown bullet each.
std::string input_formats_markdown();

}  // namespace k25
