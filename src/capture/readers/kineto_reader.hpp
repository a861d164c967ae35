// Reads PyTorch profiler (Kineto) traces, JSON plain or gzip, one file at a time (never a whole run in one
// document), its events a few megabytes at a time: kernels, copies and sets per (device, stream), the host
// calls that launched them, c10d's sizes on collective kernels, the engine's step marks and the host's
// training iterations.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "capture/model/trace_model.hpp"

namespace k25 {

class KinetoReader {
 public:
  // The events array is parsed in pieces of about this many bytes: the parser's index is of one piece, the
  // window over the text about as large.
  static constexpr std::size_t kPieceBytes = 8 << 20;

  explicit KinetoReader(std::size_t piece_bytes = kPieceBytes);
  ~KinetoReader();
  KinetoReader(const KinetoReader&) = delete;
  KinetoReader& operator=(const KinetoReader&) = delete;

  // One trace file. Every timestamp style (microseconds with three decimals relative to baseTimeNanoseconds,
  // microseconds since the epoch, integer or with decimals: read as decimal text, exact to the nanosecond),
  // legacy categories (Kernel, Runtime, Memcpy, Memset). The rank from
  // distributedInfo, else the file name (vLLM's -rank-N., SGLang's -TP-N), else the device. A file cut short
  // (a trace still being written) gives its whole events and says where it was cut. Throws UsageError naming
  // the file for JSON that is not a profiler trace, a trace without GPU events (TraceWithoutGpuEvents, `into`
  // left as it was), or unreadable data. Appends to `into` (its names, ranks, activities, marks, files): a
  // run's files are read one after the other into one capture, the parser's buffers reused. The text is
  // read a window at a time (memory that does not grow with the file) where it is a whole stream laid out
  // with an event per line, as the profilers write it; else (cut short, one line, an odd writer) whole.
  void read_file(const std::string& path, TraceCapture& into);

  // The same for text in memory (tests, fuzzing); `name` names it in messages and gives the rank by name.
  TraceCapture read_text(std::string_view text, const std::string& name);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace k25
