// Decode-time attribution: per serve concurrency C, TPOT(C) next to the communication of one decode step at
// T = C tokens, and the share of TPOT that communication takes (report.json `attribution`).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/loglog_curve.hpp"
#include "analysis/phase_result.hpp"
#include "serve/serve_result.hpp"

namespace k25 {

// What a share is of: a phase's burst ("allreduce", "dispatch", ...; or "alltoall": dispatch + combine
// together) in one timing mode; report.json writes it "<family>_<mode>" ("allreduce_graph",
// "alltoall_eager").
struct ShareKey {
  std::string family;
  TimingMode mode = TimingMode::eager;

  std::string text() const;
  // Whether its tokens are an All-to-All's per rank (dispatch, combine, alltoall), else the step's T = C.
  bool per_rank_tokens() const;
  bool operator==(const ShareKey&) const = default;
};
ShareKey share_key(Phase phase, TimingMode mode);
// The key report.json writes as `text`. Throws Error for one whose mode is not eager, graph or decode.
ShareKey parse_share_key(const std::string& text);

// Communication of one phase burst (or of dispatch + combine together) in one decode step.
struct CommShare {
  ShareKey key;
  double tokens = 0;   // token count the estimate is for (AllReduce: C; All-to-All: tokens per rank)
  double comm_ms = 0;  // step burst time, p50 over trials of the slowest rank, in milliseconds
  EstimateSource source = EstimateSource::measured;
  double share = 0;  // comm_ms / tpot_ms, a fraction (0.55 = 55 %)
};

// One concurrency level of the serve phase.
struct AttributionRow {
  int concurrency = 0;
  int tokens = 0;                       // tokens of one decode step across the TP group: T = C
  double alltoall_tokens_per_rank = 0;  // expert parallelism with DP attention: C / ranks, at least 1
  double tpot_ms = 0;                   // serve TPOT p50 at this concurrency
  std::vector<CommShare>
      comm;  // in a fixed order: allreduce, dispatch, combine, alltoall; eager before graph
};

// Tokens per rank of an All-to-All when C requests are spread over `ranks` data-parallel attention ranks.
double alltoall_tokens_per_rank(int concurrency, int ranks);

// One row per serve level that completed requests with a positive TPOT counted per token (none where TPOT is
// time per chunk: tpot_per_chunk) and per phase result to set it against; none without serve results.
// Phase bursts are taken from step_us.p50 of `results`; token counts that were not measured are estimated on
// log-log axes and marked interpolated or extrapolated. `ranks` is the run's rank count (0: unknown, taken as
// 1).
std::vector<AttributionRow> attribute_decode_time(const std::vector<PhaseResult>& results,
                                                  const std::vector<ServeLevel>& levels, int ranks);

// Shares as report.json writes them: {concurrency, tokens, alltoall_tokens_per_rank, tpot_ms,
// comm_ms: {key: ms}, share: {key: fraction}, source: {key: "measured"|"interpolated"|"extrapolated"},
// order: [keys], exceeds_tpot: [keys whose share is above 1: figures of two different systems]}.
void to_json(nlohmann::json& j, const AttributionRow& row);
void from_json(const nlohmann::json& j, AttributionRow& row);

// The share entry for `key`, or null when the row has none.
const CommShare* find_share(const AttributionRow& row, const ShareKey& key);

// The graph share of `family` ("allreduce", "alltoall") where the row has one, else the eager one, else null:
// the burst that stands for a decode step's communication.
const CommShare* graph_else_eager_share(const AttributionRow& row, const std::string& family);

}  // namespace k25
