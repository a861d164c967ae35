// A k25comm report.json as predict's base (a replay, with or without a serve run joined) or as an alternative
// (a replay's per-op figures).
#pragma once

#include <string>

#include "analysis/run_report.hpp"
#include "predict/predict_inputs.hpp"

namespace k25 {

// With serve figures (report.attribution), one level per serve concurrency C: the step is TPOT p50 (p90 from
// the serve level), and each phase's communication the attribution's at T = C, in the decode mode where the
// report has it (each op split into its wait, the decode op less the eager burst's op at the same tokens, and
// its transfer, that eager op), else eager, else graph. Without serve figures, one level per measured token
// count: the step is the chosen mode's step_us (phases measured on their own are added). The replay's
// communication is taken as exposed (nothing ran beside it). Throws UsageError naming `path` when the report
// has no result.
BaseDocument base_from_report(const RunReport& report, const std::string& path);

// One curve per phase: the burst per op (step_us p50 and p90 / ops per step) against bytes per op
// (All-to-Allv: bytes one rank sends, mean), from the eager results where the report has them, else graph:
// like for like with a base whose communication is a burst, and with nccl-tests' loop. Its decode results, if
// any, as the shaped curves (communication per op) with the shape they ran. Throws UsageError naming `path`
// when the report has no result.
AltDocument alt_from_report(const RunReport& report, const std::string& path);

}  // namespace k25
