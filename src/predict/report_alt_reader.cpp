// A replay report's per-op figures as an alternative's curves.
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/error.hpp"
#include "predict/kind_names.hpp"
#include "predict/report_inputs.hpp"

namespace k25 {
namespace {

// The mode whose op times stand for the alternative's op: eager (back to back, as nccl-tests), else graph,
// else decode.
TimingMode curve_mode(const std::vector<PhaseResult>& results, CollectiveKind kind) {
  std::set<TimingMode> modes;
  for (const PhaseResult& r : results)
    if (r.kind() == kind) modes.insert(r.mode);
  for (TimingMode mode : {TimingMode::eager, TimingMode::graph})
    if (modes.count(mode) != 0) return mode;
  return TimingMode::decode;
}

}  // namespace

AltDocument alt_from_report(const RunReport& report, const std::string& path) {
  if (report.results.empty())
    throw UsageError(path + ": a report without results: no per-op figures to predict with");
  AltDocument alt;
  alt.path = path;
  alt.format = "replay report";
  alt.ranks = report.run.ranks;
  std::set<std::string> timings;
  for (const PhaseResult& r : report.results) {
    const TimingMode mode = curve_mode(report.results, r.kind());
    if (r.mode != mode || r.op_us.p50 <= 0) continue;
    const double bytes = r.per_rank_bytes() ? r.bytes_per_rank_mean : static_cast<double>(r.bytes_per_op);
    if (bytes <= 0) continue;
    add_point(alt, normalized_kind(enum_name(r.kind())), normalized_dtype(enum_name(r.dtype)),
              AltPoint{bytes, r.op_us.p50, r.op_us.p90});
    timings.insert(fmt::format("{} {} op_us", enum_name(r.kind()), enum_name(mode)));
  }
  if (alt.curves.empty()) throw UsageError(path + ": a report without a timed op");
  alt.timing =
      fmt::format("the replay's per-op p50 and p90 (the slowest rank's op): {}", fmt::join(timings, ", "));
  if (report.run.transport == "mpi")
    alt.notes.push_back(
        "the replay ran on the host transport (MPI): its op times are the host's, not a GPU link's");
  return alt;
}

}  // namespace k25
