// The trace analysis's backends: per collective kind and size, which backend ran it (the kernel-class table
// names it by the kernel), how often and its op time over all ranks, and the engines' documented rules that
// would have chosen another backend on another link.
#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "capture/analysis/trace_work.hpp"

namespace k25 {

void backend_rows(const TraceWork& work, TraceResult& r) {
  // (kind, bytes or 0, backend) -> each op's time
  std::map<std::tuple<std::string, std::uint64_t, std::string>, std::vector<double>> ops;
  for (const RankWork& w : work.ranks)
    for (std::uint32_t i : w.comm) {
      const GpuActivity& a = work.trace.activities[i];
      const std::string& backend = work.classes.backend_of(a);
      ops[{work.classes.kinds()[work.classes.kind_of(a)], a.bytes, backend.empty() ? "unknown" : backend}]
          .push_back(to_us(a.end_ns - a.start_ns));
    }
  for (auto& [key, times] : ops) {
    BackendRow row;
    row.kind = std::get<0>(key);
    if (std::get<1>(key) > 0) row.bytes = std::get<1>(key);
    row.backend = std::get<2>(key);
    row.count = times.size();
    row.op_us_p50 = summarize(std::move(times)).p50;
    r.backends.push_back(std::move(row));
  }
  int ranks = 0;
  for (const TraceRank& rank : work.trace.ranks) ranks = std::max({ranks, rank.world_size, rank.rank + 1});
  for (const BackendRule& rule : work.classes.backend_rules()) {
    if (ranks <= rule.above_ranks) continue;
    std::string backends;
    for (const BackendRow& row : r.backends)
      if (row.backend.starts_with(rule.backend) && backends.find(row.backend) == std::string::npos)
        backends += (backends.empty() ? "" : ", ") + row.backend;
    if (!backends.empty()) r.backend_rules.push_back({backends, ranks, rule.rule, rule.source});
  }
}

}  // namespace k25
