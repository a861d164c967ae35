// report.md's "AllReduce backends" section: per token count every backend's burst against the default, the
// best, the one-shot/two-shot crossover and, with serve figures, what the best would do to TPOT.
#pragma once

#include <string>

#include "analysis/run_report.hpp"

namespace k25 {

// Empty where the report has one backend only.
std::string render_allreduce_backends(const RunReport& report);

}  // namespace k25
