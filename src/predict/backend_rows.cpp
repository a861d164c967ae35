// One AllReduce backend's rows of a replay report as its AllReduce burst.
#include "predict/backend_rows.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "common/error.hpp"

namespace k25 {

RunReport with_backend_rows(RunReport report, const std::string& backend, const std::string& path) {
  if (backend.empty() || backend == report.run.transport) return report;
  std::vector<PhaseResult> chosen;
  std::set<std::string> known = {report.run.transport};
  for (const PhaseResult& r : report.backend_results) {
    known.insert(r.backend);
    if (r.backend == backend && r.ran()) chosen.push_back(r);
  }
  if (known.count(backend) == 0) {
    std::string names;
    for (const std::string& name : known) names += (names.empty() ? "" : ", ") + name;
    throw UsageError(
        fmt::format("{}: --backend {}: the report has no rows of that AllReduce backend (it has {})", path,
                    backend, names));
  }
  if (chosen.empty())
    throw UsageError(fmt::format("{}: --backend {}: that backend ran no point of the report", path, backend));
  for (const PhaseResult& r : chosen)
    if (r.wrong > 0)
      throw UsageError(fmt::format(
          "{}: --backend {}: it was WRONG at allreduce T={} {} ({} wrong elements): its figures are not those of a correct all-reduce",
          path, backend, r.requested_tokens, to_string(r.mode), r.wrong));
  std::erase_if(report.results, [](const PhaseResult& r) { return r.phase == Phase::allreduce; });
  report.results.insert(report.results.begin(), chosen.begin(), chosen.end());
  report.backend_results.clear();
  add_note(report.run, fmt::format("its AllReduce burst is the {} backend's (--backend)", backend));
  return report;
}

}  // namespace k25
