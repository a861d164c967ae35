// The trace analysis's working state: each rank's activities by start, its collectives and its marks, in rank
// order.
#include "capture/analysis/trace_work.hpp"

#include <algorithm>
#include <thread>

namespace k25 {

TraceWork::TraceWork(TraceCapture&& captured, const KernelClassifier& classifier, const TraceSettings& given)
    : trace(std::move(captured)),
      classes(trace, classifier),
      settings(given),
      ranks(trace.ranks.size()),
      unclassified(trace.names.size(), {0, 0}) {
  for (std::uint32_t i = 0; i < trace.ranks.size(); ++i) ranks[i].index = i;
  for (std::uint32_t i = 0; i < trace.activities.size(); ++i)
    ranks[trace.activities[i].rank].acts.push_back(i);
  for (const StepMark& m : trace.marks) ranks[m.rank].marks.push_back(&m);
  // Each rank's activities by start, its collectives: the ranks shared between the two cores (each thread
  // writes its own ranks), ranks 0, 2, ... on this one.
  const auto sort_ranks = [&](std::size_t parity) {
    for (std::size_t r = parity; r < ranks.size(); r += 2) {
      RankWork& w = ranks[r];
      std::stable_sort(w.acts.begin(), w.acts.end(), [&](std::uint32_t a, std::uint32_t b) {
        return trace.activities[a].start_ns < trace.activities[b].start_ns;
      });
      for (std::uint32_t i : w.acts)
        if (classes.is_comm(trace.activities[i])) w.comm.push_back(i);
    }
  };
  if (ranks.size() > 1) {
    std::thread odd(sort_ranks, 1);
    sort_ranks(0);
    odd.join();
  } else {
    sort_ranks(0);
  }
  for (const RankWork& w : ranks)
    if (!w.acts.empty()) origin = std::min(origin, trace.activities[w.acts.front()].start_ns);
  // Ranks in rank order for every output.
  std::sort(ranks.begin(), ranks.end(), [&](const RankWork& a, const RankWork& b) {
    return trace.ranks[a.index].rank < trace.ranks[b.index].rank;
  });
}

}  // namespace k25
