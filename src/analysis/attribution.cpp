// Decode-time attribution from phase results and serve levels.
#include "analysis/attribution.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "common/enum_names.hpp"
#include "common/json_integer.hpp"

namespace k25 {
namespace {

// The later of two sources in measured < interpolated < extrapolated: a sum is only as good as its weakest
// part.
EstimateSource weaker(EstimateSource a, EstimateSource b) {
  return std::max(a, b);
}

// step_us.p50 (in ms) against the tokens asked, for one (phase, mode): in graph mode a batch of T costs the
// step of T padded to its capture size, which is what the result of T measured.
LogLogCurve step_ms_curve(const std::vector<PhaseResult>& results, Phase phase, TimingMode mode) {
  std::vector<CurvePoint> points;
  for (const PhaseResult& r : results) {
    if (r.phase == phase && r.mode == mode)
      points.push_back({static_cast<double>(r.requested_tokens), r.step_us.p50 / 1000.0});
  }
  return LogLogCurve(std::move(points));
}

}  // namespace

std::string ShareKey::text() const {
  return family + "_" + to_string(mode);
}

bool ShareKey::per_rank_tokens() const {
  return family == to_string(Phase::dispatch) || family == to_string(Phase::combine) || family == "alltoall";
}

ShareKey share_key(Phase phase, TimingMode mode) {
  return {to_string(phase), mode};
}

ShareKey parse_share_key(const std::string& text) {
  const std::size_t cut = text.rfind('_');
  const std::string mode = cut == std::string::npos ? "" : text.substr(cut + 1);
  return {text.substr(0, cut == std::string::npos ? text.size() : cut),
          enum_from_name_or_throw<TimingMode>("attribution key " + text + ": timing mode", mode)};
}

double alltoall_tokens_per_rank(int concurrency, int ranks) {
  const double per_rank = static_cast<double>(concurrency) / static_cast<double>(std::max(ranks, 1));
  return std::max(per_rank, 1.0);
}

std::vector<AttributionRow> attribute_decode_time(const std::vector<PhaseResult>& results,
                                                  const std::vector<ServeLevel>& levels, int ranks) {
  constexpr Phase kPhases[] = {Phase::allreduce, Phase::allgather, Phase::reducescatter, Phase::dispatch,
                               Phase::combine};
  constexpr TimingMode kModes[] = {TimingMode::eager, TimingMode::graph};

  std::vector<AttributionRow> rows;
  for (const ServeLevel& level : levels) {
    if (level.completed <= 0 || !level.tpot_ms || !(level.tpot_ms->p50 > 0) || level.concurrency <= 0)
      continue;
    if (tpot_per_chunk(level)) continue;  // time per chunk is not a decode step's time: no share of it
    AttributionRow row;
    row.concurrency = level.concurrency;
    row.tokens = level.concurrency;
    row.alltoall_tokens_per_rank = alltoall_tokens_per_rank(level.concurrency, ranks);
    row.tpot_ms = level.tpot_ms->p50;

    for (Phase phase : kPhases) {
      const bool per_rank = phase == Phase::dispatch || phase == Phase::combine;
      const double tokens = per_rank ? row.alltoall_tokens_per_rank : row.tokens;
      for (TimingMode mode : kModes) {
        const std::optional<CurveEstimate> estimate = step_ms_curve(results, phase, mode).at(tokens);
        if (!estimate) continue;
        row.comm.push_back({share_key(phase, mode), tokens, estimate->value, estimate->source,
                            estimate->value / row.tpot_ms});
      }
    }
    for (TimingMode mode : kModes) {
      const CommShare* dispatch = find_share(row, share_key(Phase::dispatch, mode));
      const CommShare* combine = find_share(row, share_key(Phase::combine, mode));
      if (!dispatch || !combine) continue;
      const double ms = dispatch->comm_ms + combine->comm_ms;
      row.comm.push_back({ShareKey{"alltoall", mode}, dispatch->tokens, ms,
                          weaker(dispatch->source, combine->source), ms / row.tpot_ms});
    }
    if (!row.comm.empty()) rows.push_back(std::move(row));  // a serve-only report attributes nothing
  }
  std::sort(rows.begin(), rows.end(),
            [](const AttributionRow& a, const AttributionRow& b) { return a.concurrency < b.concurrency; });
  return rows;
}

const CommShare* find_share(const AttributionRow& row, const ShareKey& key) {
  const auto it =
      std::find_if(row.comm.begin(), row.comm.end(), [&](const CommShare& c) { return c.key == key; });
  return it == row.comm.end() ? nullptr : &*it;
}

const CommShare* graph_else_eager_share(const AttributionRow& row, const std::string& family) {
  if (const CommShare* graph = find_share(row, {family, TimingMode::graph})) return graph;
  return find_share(row, {family, TimingMode::eager});
}

void to_json(nlohmann::json& j, const AttributionRow& row) {
  nlohmann::json comm_ms = nlohmann::json::object(), share = nlohmann::json::object(),
                 source = nlohmann::json::object(), tokens = nlohmann::json::object();
  nlohmann::json order = nlohmann::json::array(), exceeds_tpot = nlohmann::json::array();
  for (const CommShare& c : row.comm) {
    const std::string key = c.key.text();
    comm_ms[key] = c.comm_ms;
    share[key] = c.share;
    source[key] = to_string(c.source);
    order.push_back(key);
    if (c.share > 1.0) exceeds_tpot.push_back(key);
  }
  j = nlohmann::json{{"concurrency", row.concurrency},
                     {"tokens", row.tokens},
                     {"alltoall_tokens_per_rank", row.alltoall_tokens_per_rank},
                     {"tpot_ms", row.tpot_ms},
                     {"comm_ms", comm_ms},
                     {"share", share},
                     {"source", source},
                     {"order", order},
                     {"exceeds_tpot", exceeds_tpot}};
}

void from_json(const nlohmann::json& j, AttributionRow& row) {
  row.concurrency = json_integer_at(j, "concurrency", 1);
  row.tokens = json_integer_at(j, "tokens", 1);
  row.alltoall_tokens_per_rank = j.value("alltoall_tokens_per_rank", static_cast<double>(row.tokens));
  row.tpot_ms = j.at("tpot_ms").get<double>();
  const nlohmann::json& comm_ms = j.at("comm_ms");
  std::vector<std::string> keys = j.value("order", std::vector<std::string>{});
  if (keys.empty()) {
    for (const auto& item : comm_ms.items()) keys.push_back(item.key());
  }
  row.comm.clear();
  for (const std::string& key : keys) {
    CommShare c;
    c.key = parse_share_key(key);
    c.comm_ms = comm_ms.at(key).get<double>();
    c.share = j.contains("share") && j["share"].contains(key) ? j["share"][key].get<double>()
                                                              : c.comm_ms / row.tpot_ms;
    c.source = j.contains("source") && j["source"].contains(key)
                   ? parse_estimate_source(j["source"][key].get<std::string>())
                   : EstimateSource::measured;
    c.tokens = c.key.per_rank_tokens() ? row.alltoall_tokens_per_rank : row.tokens;
    row.comm.push_back(std::move(c));
  }
}

}  // namespace k25
