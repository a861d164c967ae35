// Reads the JSON Lines that NVIDIA's NCCL Inspector (NCCL's profiler plugin) writes, output formats v4.0 to
// v4.3, from files or directories, into records per (communicator, rank).
#pragma once

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "capture/model/inspector_record.hpp"

namespace k25 {

// The Inspector's `metadata.inspector_output_format_version` values this reader knows. v4.0 (NCCL 2.28.9's
// ext-profiler copy and the first ring-buffer plugin): every line carries header + metadata + coll_perf or
// p2p_perf. v4.1/v4.2: the same, with header.comm_name, coll_algo/coll_proto and a dump_stats record per
// communicator dump (drop counts). v4.3: a dump_stats marker carries header + metadata once and the records
// that follow it may carry only their coll_perf / p2p_perf / proxy_trace, counted by the marker.
inline constexpr std::array<std::string_view, 4> kInspectorFormats = {"v4.0", "v4.1", "v4.2", "v4.3"};

class InspectorReader {
 public:
  InspectorReader();
  ~InspectorReader();
  InspectorReader(const InspectorReader&) = delete;
  InspectorReader& operator=(const InspectorReader&) = delete;

  // A directory: each regular file in it named *.log (the Inspector writes <hostname>-pid<pid>.log), in name
  // order; one whose first line is not Inspector output is skipped with a note. A file: read whatever its
  // name. Throws UsageError (exit 2) naming the file and line for a file given by name that is not Inspector
  // output, an unknown format version, a malformed record, or an unreadable path.
  void add_path(const std::string& path);

  // The text of one file (tests, fuzzing); `name` names it in messages. Same rules as a file given by name.
  void add_text(std::string_view text, const std::string& name);

  // Everything read. Throws UsageError when no record at all was found.
  InspectorCapture finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Reads every path (directories and files) with an InspectorReader.
InspectorCapture read_inspector_paths(const std::vector<std::string>& paths);

}  // namespace k25
