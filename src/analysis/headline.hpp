// The headline of a run: one sentence per serve concurrency ("AllReduce burst = 55.0 % of TPOT at C=1 (6.81
// ms of 12.4 ms, graph), All-to-All = 12.0 % (...)"), or, without serve results, one sentence over the
// communication of a decode step at the measured token counts, or, serve only, the serve figures; each with
// the tags of the caveats that change its meaning. Printed last on the console and first in report.md.
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

// Without an attribution, the step's communication at each measured token count, one sentence each ("T=16:
// AllReduce burst 9.00 ms per decode step of 16 tokens (122 ops, eager)"), where there are several: the
// headline is then their one summary, and these lines go beside it ("per token count:" on the console and in
// report.md). Empty otherwise.
std::vector<std::string> per_token_count_lines(const RunReport& report);

// The caveats that change what a headline figure means, as short tags (e.g. "host transport", "8 ranks on 2
// cores", "TPOT per chunk"); `communication`: tags about the replay, `serving`: tags about the serve figures.
struct HeadlineTags {
  std::vector<std::string> communication, serving;
};
HeadlineTags headline_tags(const RunReport& report);

// `sentence` ending with its tags: " [host transport; oversubscribed: 8 ranks on 2 cores]".
std::string with_headline_tags(std::string sentence, const std::vector<std::string>& tags);

// The tag of a serve level whose output tokens are its content chunks (its TPOT is per chunk, its
// throughput chunks per second).
inline constexpr const char* kCountedInChunksTag = "counted in chunks, not tokens";

// The caveats of one serve level, on the sentences that quote its figures: "counted in chunks, not tokens",
// "6 of 128 requests failed".
std::vector<std::string> level_tags(const ServeLevel& level);

// The report's headline: one sentence per attributed serve concurrency; without an attribution, one sentence
// over the measured token counts ("AllReduce burst per decode step 6.81 ms at T=1 to 9.00 ms at T=16 (122
// ops, eager); 2 token counts, one line each", per_token_count_lines has them), or for a serve-only report
// one sentence per serve level ("C=1: TPOT p50 12.4 ms, TTFT p50 40.0 ms, 79.0 output tok/s (serve only: no
// communication measured)"), each ending with the tags that apply to the figures it quotes: " [host
// transport; oversubscribed: 8 ranks on 2 cores]", and those of its serve level (level_tags). Where serve
// levels have a TPOT per chunk and so no attribution, one more sentence says so. Where chunks carry several
// tokens, the serve-only sentence gives the interval per token beside TPOT; counted in chunks, it says "per
// chunk" and "output chunks/s".
std::vector<std::string> report_headline(const RunReport& report,
                                         const std::vector<AttributionRow>& attribution);

}  // namespace k25
