// The headline of a run: one sentence per serve concurrency ("AllReduce burst = 55.0 % of TPOT at C=1 (6.81
// ms of 12.4 ms, graph), All-to-All = 12.0 % (...)"), or, without serve results, the communication of one
// decode step at each measured token count, or, serve only, the serve figures; each with the tags of the
// caveats that change its meaning. Printed last on the console and first in report.md.
#pragma once

#include <string>
#include <vector>

#include "analysis/attribution.hpp"
#include "analysis/phase_result.hpp"
#include "analysis/run_report.hpp"

namespace k25 {

// Each burst is taken in graph mode where it was measured (as vLLM's decode replays CUDA graphs), else
// eager; the sentence names the mode. Estimates between or beyond measured token counts say so.
std::vector<std::string> headline_sentences(const std::vector<PhaseResult>& results,
                                            const std::vector<AttributionRow>& attribution);

// The caveats that change what a headline figure means, as short tags (e.g. "host transport", "8 ranks on 2
// cores", "TPOT per chunk"); `communication`: tags about the replay, `serving`: tags about the serve figures.
struct HeadlineTags {
  std::vector<std::string> communication, serving;
};
HeadlineTags headline_tags(const RunReport& report);

// The report's headline: headline_sentences, or for a serve-only report one sentence per serve level ("C=1:
// TPOT p50 12.4 ms, TTFT p50 40.0 ms, 79.0 output tok/s (serve only: no communication measured)"), each
// ending with the tags that apply to the figures it quotes: " [host transport; oversubscribed: 8 ranks on 2
// cores]". Where serve levels have a TPOT per chunk and so no attribution, one more sentence says so.
std::vector<std::string> report_headline(const RunReport& report,
                                         const std::vector<AttributionRow>& attribution);

}  // namespace k25
