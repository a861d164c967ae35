// Rendering of capture-ops.csv from the timelines of a CaptureResult.
#include "capture/capture_csv.hpp"

#include <fmt/format.h>

namespace k25 {
namespace {

// RFC 4180 quoting for text that came from the Inspector files (communicator ids, kind names).
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char ch : text) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

}  // namespace

std::string render_ops_csv(const CaptureResult& capture) {
  std::string csv =
      "communicator,position,kind,sn,bytes,exec_us,slowest_rank,ranks_present,step,phase,start_ts\n";
  for (std::size_t c = 0; c < capture.communicators.size() && c < capture.timelines.size(); ++c) {
    const std::string id = csv_field(capture.communicators[c].id);
    for (const TimelineRow& row : capture.timelines[c]) {
      const char* phase = row.phase == 'd' ? "decode" : row.phase == 'p' ? "prefill" : "outside_steps";
      fmt::format_to(std::back_inserter(csv), "{},{},{},{},{},{},{},{},{},{},{}\n", id, row.position,
                     csv_field(capture.kinds[row.kind]), row.sn, row.bytes, row.exec_us, row.slowest_rank,
                     row.ranks_present, row.step, phase, row.start_ts);
    }
  }
  return csv;
}

}  // namespace k25
