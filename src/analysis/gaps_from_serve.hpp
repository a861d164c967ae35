// --gaps-from: the decode mode's compute per layer derived from a measured report: the serve phase's TPOT
// minus the communication of one decode step, spread over the model's layers.
#pragma once

#include <string>
#include <vector>

#include "analysis/run_report.hpp"

namespace k25 {

struct ServeDerivedGaps {
  double layer_gap_us = 0;        // (tpot - comm) / layers
  int concurrency = 0;            // the serve level used: the lowest concurrency with a TPOT
  double tpot_ms = 0;             // its TPOT p50
  double comm_ms = 0;             // the step's communication at that level (attribution), summed over `keys`
  std::vector<std::string> keys;  // attribution keys summed: allreduce and alltoall, graph before eager
};

// From an analyzed report (attribution filled). Throws UsageError (exit 2) when the report has no serve level
// with a TPOT, no communication measured at it, or communication as long as the TPOT itself (the two would
// then be figures of different systems), or `num_layers` is not positive.
ServeDerivedGaps gaps_from_serve(const RunReport& report, int num_layers);

// One line for the report's notes and the console: what the gap was derived from.
std::string describe(const ServeDerivedGaps& gaps, const std::string& path);

}  // namespace k25
