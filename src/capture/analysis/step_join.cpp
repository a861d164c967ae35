// The trace analysis's join across ranks: each rank's steps lined up with the reference rank's (the one with
// the most steps) by their GPU windows, and the live join cost: per joined step and collective kind, the
// spread of the k-th collective's start over the ranks and which rank started last, and each collective split
// into the ranks' wait for the last to start and the transfer after it.
#include <algorithm>

#include "capture/analysis/trace_work.hpp"

namespace k25 {
namespace {

// Samples of one (phase, batch, kind) over the joined steps.
struct JoinSamples {
  std::string phase;
  std::optional<int> batch;
  std::set<std::int64_t> steps;
  std::vector<double> spread, wait, transfer;
  std::map<int, std::vector<double>> arrival;  // per rank number: its start behind the earliest
  std::map<int, std::uint64_t> last;
  std::vector<int> last_order;  // the ranks that were last, in the order they first were
  std::set<int> ranks;
};
// One collective kernel's GPU time on one rank.
struct KernelSpan {
  std::int64_t start_ns = 0, end_ns = 0;
};
// Per rank number: its collectives of one kind in one joined step, in order.
using RankStarts = std::map<int, std::vector<KernelSpan>>;

// The reference rank's step that overlaps each of `w`'s steps most (-1: none).
void line_up(const RankWork& w, const RankWork& reference, std::vector<std::int64_t>& joined) {
  const std::vector<TraceStep>& ref = reference.steps;
  for (std::size_t s = 0; s < w.steps.size(); ++s) {
    if (&w == &reference) {
      joined[s] = static_cast<std::int64_t>(s);
      continue;
    }
    const TraceStep& step = w.steps[s];
    auto it = std::lower_bound(ref.begin(), ref.end(), step.start_ns,
                               [](const TraceStep& x, std::int64_t t) { return x.end_ns < t; });
    std::int64_t best = 0;
    for (; it != ref.end() && it->start_ns < step.end_ns; ++it) {
      const std::int64_t overlap = std::min(it->end_ns, step.end_ns) - std::max(it->start_ns, step.start_ns);
      if (overlap > best) {
        best = overlap;
        joined[s] = it - ref.begin();
      }
    }
  }
}

const RankWork* line_up_steps(TraceWork& work, TraceResult& r) {
  const RankWork* reference = nullptr;
  for (const RankWork& w : work.ranks)
    if (!reference || w.steps.size() > reference->steps.size()) reference = &w;
  if (reference && !reference->steps.empty()) r.reference_rank = work.trace.ranks[reference->index].rank;
  for (RankWork& w : work.ranks) {
    w.joined.assign(w.steps.size(), -1);
    if (reference && !reference->steps.empty()) line_up(w, *reference, w.joined);
  }
  for (TraceStepRow& row : r.step_rows)
    for (const RankWork& w : work.ranks)
      if (work.trace.ranks[w.index].rank == row.rank && static_cast<std::size_t>(row.index) < w.joined.size())
        row.joined = w.joined[static_cast<std::size_t>(row.index)];
  return reference;
}

// (joined step, kind) -> per rank the starts of its collectives of that kind, in order.
std::map<std::pair<std::int64_t, std::uint16_t>, RankStarts> collective_starts(
    const TraceWork& work, const std::vector<const RankWork*>& timed) {
  std::map<std::pair<std::int64_t, std::uint16_t>, RankStarts> starts;
  for (const RankWork* w : timed)
    for (std::size_t c = 0; c < w->comm.size(); ++c) {
      if (w->comm_step[c] < 0) continue;
      const std::int64_t joined = w->joined[static_cast<std::size_t>(w->comm_step[c])];
      if (joined < 0) continue;
      const GpuActivity& a = work.trace.activities[w->comm[c]];
      starts[{joined, work.classes.kind_of(a)}][work.trace.ranks[w->index].rank].push_back(
          {a.start_ns, a.end_ns});
    }
  return starts;
}

// The k-th collective of every rank: its start spread, the rank last to start, each rank's arrival behind the
// earliest, and the op split into the ranks' mean wait for the last start and the mean time from it to the
// ranks' ends (a rank's op = its wait + the transfer, so the two add up to the ranks' mean op time).
void add_spreads(const RankStarts& per_rank, std::size_t count, JoinSamples& js) {
  const auto ranks = static_cast<double>(per_rank.size());
  for (std::size_t k = 0; k < count; ++k) {
    std::int64_t lo = INT64_MAX, hi = INT64_MIN;
    int last = 0;
    for (const auto& [rank_number, list] : per_rank) {
      lo = std::min(lo, list[k].start_ns);
      if (list[k].start_ns > hi) {
        hi = list[k].start_ns;
        last = rank_number;
      }
    }
    double waits_us = 0, transfers_us = 0;  // sums over the ranks, from the latest start (exact: ns apart)
    for (const auto& [rank_number, list] : per_rank) {
      waits_us += to_us(hi - list[k].start_ns);
      transfers_us += to_us(list[k].end_ns - hi);
    }
    js.spread.push_back(to_us(hi - lo));
    js.wait.push_back(waits_us / ranks);
    js.transfer.push_back(std::max(0.0, transfers_us / ranks));
    for (const auto& [rank_number, list] : per_rank)
      js.arrival[rank_number].push_back(to_us(list[k].start_ns - lo));
    if (js.last[last]++ == 0) js.last_order.push_back(last);
  }
}

JoinCostGroup join_group(const std::string& kind, JoinSamples& js) {
  JoinCostGroup g;
  g.phase = js.phase;
  g.batch = js.batch;
  g.kind = kind;
  g.steps = js.steps.size();
  g.collectives = js.spread.size();
  g.ranks = static_cast<int>(js.ranks.size());
  g.start_spread_us = summarize(std::move(js.spread));
  g.wait_us = summarize(std::move(js.wait));
  g.transfer_us = summarize(std::move(js.transfer));
  for (auto& [rank_number, arrivals] : js.arrival)
    g.arrivals.push_back({rank_number, summarize(std::move(arrivals))});
  const auto most = std::max_element(js.last.begin(), js.last.end(),
                                     [](const auto& a, const auto& b) { return a.second < b.second; });
  g.last_rank = most->first;
  g.last_rank_share = static_cast<double>(most->second) / static_cast<double>(g.collectives);
  g.last_rank_count = most->second;
  for (const int rank_number : js.last_order)
    if (js.last[rank_number] == most->second) g.last_ranks.push_back(rank_number);
  return g;
}

void join_cost(const TraceWork& work, const RankWork& reference, const std::vector<const RankWork*>& timed,
               TraceResult& r) {
  std::map<std::tuple<int, int, std::uint16_t>, JoinSamples> join;
  for (const auto& [key, per_rank] : collective_starts(work, timed)) {
    if (per_rank.size() < 2) continue;
    const std::size_t count = per_rank.begin()->second.size();
    if (std::any_of(per_rank.begin(), per_rank.end(),
                    [&](const auto& p) { return p.second.size() != count; }))
      continue;
    const TraceStep& ref_step = reference.steps[static_cast<std::size_t>(key.first)];
    JoinSamples& js =
        join[{k25::phase_order(to_string(ref_step.phase)), ref_step.batch.value_or(-1), key.second}];
    js.phase = to_string(ref_step.phase);
    js.batch = ref_step.batch;
    js.steps.insert(key.first);
    for (const auto& [rank_number, list] : per_rank) js.ranks.insert(rank_number);
    add_spreads(per_rank, count, js);
  }
  for (auto& [key, js] : join) r.join.push_back(join_group(work.classes.kinds()[std::get<2>(key)], js));
  if (r.join.empty()) r.join_reason = "no step holds the same collectives on two or more ranks";
}

}  // namespace

void join_ranks(TraceWork& work, TraceResult& r) {
  const RankWork* reference = line_up_steps(work, r);
  std::vector<const RankWork*> timed;
  for (const RankWork& w : work.ranks)
    if (work.trace.ranks[w.index].absolute_clock && !w.steps.empty()) timed.push_back(&w);
  if (work.ranks.size() < 2)
    r.join_reason = "one rank: no join across ranks";
  else if (timed.size() < 2)
    r.join_reason = "fewer than two ranks with steps on a common clock";
  else
    join_cost(work, *reference, timed, r);
}

}  // namespace k25
