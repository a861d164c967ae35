// Trace-event JSON from trial timelines.
#include "analysis/chrome_trace.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace k25 {
namespace {

nlohmann::json metadata_event(const char* name, int pid, int tid, nlohmann::json args) {
  nlohmann::json event = {{"name", name}, {"ph", "M"}, {"pid", pid}, {"args", std::move(args)}};
  if (tid >= 0) event["tid"] = tid;
  return event;
}

std::string op_name(Phase phase, const OpSpan& op) {
  if (op.layer < 0) return fmt::format("{} embedding", to_string(phase));
  return fmt::format("{} L{}", to_string(phase), op.layer);
}

}  // namespace

nlohmann::json chrome_trace(const std::vector<TrialTimeline>& trials) {
  nlohmann::json events = nlohmann::json::array();
  for (std::size_t t = 0; t < trials.size(); ++t) {
    const TrialTimeline& trial = trials[t];
    const int pid = static_cast<int>(t) + 1;
    events.push_back(metadata_event(
        "process_name", pid, -1,
        {{"name", fmt::format("{} T={} {}", to_string(trial.phase), trial.tokens, to_string(trial.mode))}}));
    events.push_back(metadata_event("process_sort_index", pid, -1, {{"sort_index", pid}}));
    for (std::size_t rank = 0; rank < trial.ranks.size(); ++rank) {
      const int tid = static_cast<int>(rank);
      const std::string host = rank < trial.rank_hosts.size() ? trial.rank_hosts[rank] : std::string();
      events.push_back(metadata_event(
          "thread_name", pid, tid,
          {{"name", host.empty() ? fmt::format("rank {}", rank) : fmt::format("rank {} ({})", rank, host)}}));
      events.push_back(metadata_event("thread_sort_index", pid, tid, {{"sort_index", tid}}));
      for (const OpSpan& op : trial.ranks[rank]) {
        events.push_back(
            {{"name", op_name(trial.phase, op)},
             {"cat", to_string(trial.phase)},
             {"ph", "X"},
             {"pid", pid},
             {"tid", tid},
             {"ts", op.start_us},
             {"dur", std::max(op.end_us - op.start_us, 0.0)},
             {"args",
              {{"op_index", op.op_index}, {"layer", op.layer}, {"tokens", trial.tokens}, {"rank", tid}}}});
      }
    }
  }
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ms"},
          {"otherData",
           {{"tool", "k25comm"},
            {"clock",
             "microseconds from each rank's trial start, after the trial's barrier; clocks of different "
             "ranks are aligned only by that barrier"}}}};
}

}  // namespace k25
