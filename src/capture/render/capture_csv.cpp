// Rendering of capture-ops.csv from the timelines of a CaptureResult, and of capture-steps.csv from a trace.
#include "capture/render/capture_csv.hpp"

#include <fmt/format.h>

#include "common/csv_table.hpp"

namespace k25 {
namespace {

template <typename T>
std::string optional_cell(const std::optional<T>& value) {
  return value ? fmt::format("{}", *value) : std::string();
}

}  // namespace

std::string render_ops_csv(const CaptureResult& capture) {
  std::string csv =
      "communicator,position,kind,sn,bytes,exec_us,slowest_rank,ranks_present,step,phase,start_ts\n";
  for (std::size_t c = 0; c < capture.communicators.size() && c < capture.timelines.size(); ++c) {
    const std::string id = csv_field(capture.communicators[c].id);
    for (const TimelineRow& row : capture.timelines[c]) {
      const char* phase = op_phase_name(row.phase);
      fmt::format_to(std::back_inserter(csv), "{},{},{},{},{},{},{},{},{},{},{}\n", id, row.position,
                     csv_field(capture.kinds[row.kind]), row.sn, row.bytes, row.exec_us, row.slowest_rank,
                     row.ranks_present, row.step, phase, row.start_ts);
    }
  }
  return csv;
}

std::string render_steps_csv(const TraceResult& trace) {
  std::string csv =
      "rank,step,joined_step,phase,batch,tokens,start_us,wall_us,busy_us,idle_us,host_us,comm_ops,comm_merged_us,comm_overlapped_us,comm_exposed_us";
  for (const KernelClassInfo& c : kKernelClasses) csv += fmt::format(",{}_us", c.key);
  csv += ",mark\n";
  for (const TraceStepRow& row : trace.step_rows) {
    fmt::format_to(std::back_inserter(csv),
                   "{},{},{},{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{},{},{:.3f},{:.3f},{:.3f}", row.rank,
                   row.index, row.joined, row.phase, optional_cell(row.batch), optional_cell(row.tokens),
                   row.start_us, row.wall_us, row.busy_us, row.idle_us,
                   row.host_us ? fmt::format("{:.3f}", *row.host_us) : "", row.comm_ops, row.comm.merged_us,
                   row.comm.overlapped_us, row.comm.exposed_us);
    for (const double v : row.class_merged_us) fmt::format_to(std::back_inserter(csv), ",{:.3f}", v);
    csv += "," + csv_field(row.mark) + "\n";
  }
  return csv;
}

}  // namespace k25
