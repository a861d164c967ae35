// The headline of a run: one sentence per serve concurrency ("AllReduce burst = 55.0 % of TPOT at C=1 (6.81
// ms of 12.4 ms, graph), All-to-All = 12.0 % (...)"), or, without serve results, the communication of one
// decode step at each measured token count. Printed last on the console and first in report.md.
#pragma once

#include <string>
#include <vector>

#include "analysis/attribution.hpp"
#include "analysis/phase_result.hpp"

namespace k25 {

// Each burst is taken in graph mode where it was measured (as vLLM's decode replays CUDA graphs), else
// eager; the sentence names the mode. Estimates between or beyond measured token counts say so.
std::vector<std::string> headline_sentences(const std::vector<PhaseResult>& results,
                                            const std::vector<AttributionRow>& attribution);

}  // namespace k25
