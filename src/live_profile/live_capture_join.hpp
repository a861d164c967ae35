// The report part of the live profile: traces read after the run (copied from another host, or mounted)
// joined to the profiled levels of its report.json, as `k25comm capture DIR` reads them.
#pragma once

#include <string>
#include <vector>

#include "analysis/run_report.hpp"

namespace k25 {

// `k25comm report RUN/report.json --capture DIR...`: each input ("C:DIR" for level C, or DIR for the next
// profiled level, by concurrency, whose live step was not read) read as `k25comm capture DIR` reads it (the
// model from the report's effective config) into report.live_profile. Throws UsageError naming the input for
// a folder that cannot be read, a C that is not a concurrency, and an input no profiled level is left for.
void join_live_captures(RunReport& report, const std::vector<std::string>& inputs);

}  // namespace k25
