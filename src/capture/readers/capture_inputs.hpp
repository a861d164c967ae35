// The inputs of `k25comm capture`: files and folders, each file's format told by its content, never its name,
// and read by its format's reader (the format families of input_formats.hpp).
#pragma once

#include <string>
#include <vector>

#include "capture/model/inspector_record.hpp"
#include "capture/model/trace_model.hpp"

namespace k25 {

struct CaptureInputs {
  InspectorCapture inspector;  // empty without Inspector files
  TraceCapture trace;          // empty without profiler traces
};

// Reads every path: a folder's regular files in name order (a file of no known format, or a trace without GPU
// events, is skipped there with a note), a file given by name whatever its name. Throws UsageError naming the
// file for a path that does not exist, a file given by name of no known format, what its reader refuses,
// files of different runs, two files claiming one rank, and inputs that hold nothing at all.
CaptureInputs read_capture_inputs(const std::vector<std::string>& paths);

// Appends `part`'s records (files, streams, ops, kinds, notes) to `into`, renumbering its indices.
void append_records(InspectorCapture& into, InspectorCapture&& part);

}  // namespace k25
