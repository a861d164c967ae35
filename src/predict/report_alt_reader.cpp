// A replay report's per-op figures as an alternative's curves: its burst per op, and its decode mode's
// communication per op with the shape it ran.
#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/error.hpp"
#include "predict/report_inputs.hpp"
#include "predict/report_phases.hpp"

namespace k25 {

AltDocument alt_from_report(const RunReport& report, const std::string& path) {
  if (report.results.empty())
    throw UsageError(path + ": a report without results: no per-op figures to predict with");
  AltDocument alt;
  alt.path = path;
  alt.ranks = report.run.ranks;
  alt.hosts =
      static_cast<int>(std::set<std::string>(report.run.hosts.begin(), report.run.hosts.end()).size());
  std::set<std::string> timings, shapes;
  for (const PhaseResult& r : report.results) {
    if (op_size_bytes(r) <= 0) continue;
    if (const std::optional<AltPoint> decode = decode_op_point(r); decode && decode->op_us > 0) {
      add_point(alt.shaped, phase_curve_key(r), *decode);
      shapes.insert(r.decode->shape);
    }
    // The mode whose burst stands for the alternative's op: eager (back to back, as nccl-tests), else graph.
    const std::optional<TimingMode> mode =
        first_measured_mode(report.results, r.phase, {TimingMode::eager, TimingMode::graph});
    if (!mode || r.mode != *mode || r.step_us.p50 <= 0) continue;
    add_point(alt.curves, phase_curve_key(r), burst_op_point(r));
    alt.launch = *mode == TimingMode::graph ? "graph" : "eager";
    timings.insert(fmt::format("{} {}", phase_name(r), enum_name(*mode)));
  }
  if (alt.curves.empty() && alt.shaped.empty()) throw UsageError(path + ": a report without a timed op");
  alt.timing = fmt::format(
      "the replay's burst per op, p50 and p90 (step_us / ops per step, the slowest rank's; back to back as nccl-tests times its loop): {}",
      fmt::join(timings, ", "));
  if (shapes.size() == 1) alt.shape = *shapes.begin();
  if (shapes.size() > 1) alt.shaped.clear();  // several shapes in one run: none stands for the step
  if (!alt.shaped.empty())
    alt.notes.push_back(
        fmt::format("its decode mode ran the shape: {}", alt.shape.empty() ? "not said" : alt.shape));
  // Which all-reduce backend's burst the curve is (results[].backend; --backend chose another than the
  // transport's own).
  const auto allreduce = std::find_if(report.results.begin(), report.results.end(), [](const PhaseResult& r) {
    return r.phase == Phase::allreduce && !r.backend.empty();
  });
  if (allreduce != report.results.end())
    alt.notes.push_back(
        fmt::format("its AllReduce burst ran on the {} backend{}", allreduce->backend,
                    allreduce->backend == report.run.transport ? " (the transport's own)" : " (--backend)"));
  if (report.run.transport == "mpi")
    alt.notes.push_back(
        "the replay ran on the host transport (MPI): its op times are the host's, not a GPU link's");
  return alt;
}

}  // namespace k25
