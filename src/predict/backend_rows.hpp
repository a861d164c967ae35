// `k25comm predict ... --with ab/report.json --backend oneshot`: a replay report's rows of one AllReduce
// backend
// (--allreduce-backends) standing for its AllReduce burst, so that predict takes that backend's measured
// figures (its decode mode's with the base's shape: "measured").
#pragma once

#include <string>

#include "analysis/run_report.hpp"

namespace k25 {

// `report` with its AllReduce rows replaced by `backend`'s (its own collective's where `backend` names it or
// is empty). Throws UsageError naming `path` where the report has no rows of that backend (naming those it
// has), where the backend ran none of them, or where it was WRONG (its figures are not a correct
// all-reduce's).
RunReport with_backend_rows(RunReport report, const std::string& backend, const std::string& path);

}  // namespace k25
