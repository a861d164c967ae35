// Trace-event JSON from trial timelines: per point, a real timed trial of the step and a per-op pass trial.
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

nlohmann::json slice(std::string name, Phase phase, int pid, int tid, double start_us, double duration_us,
                     nlohmann::json args) {
  return {{"name", std::move(name)},
          {"cat", to_string(phase)},
          {"ph", "X"},
          {"pid", pid},
          {"tid", tid},
          {"ts", start_us},
          {"dur", std::max(duration_us, 0.0)},
          {"args", std::move(args)}};
}

// One named track of a point: its thread name and its place in the point's list.
void add_track(nlohmann::json& events, int pid, int tid, const std::string& name) {
  events.push_back(metadata_event("thread_name", pid, tid, {{"name", name}}));
  events.push_back(metadata_event("thread_sort_index", pid, tid, {{"sort_index", tid}}));
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
    const std::size_t ranks = std::max(trial.step.size(), trial.ranks.size());
    for (std::size_t rank = 0; rank < ranks; ++rank) {
      const std::string host = rank < trial.rank_hosts.size() ? trial.rank_hosts[rank] : std::string();
      const std::string who =
          host.empty() ? fmt::format("rank {}", rank) : fmt::format("rank {} ({})", rank, host);
      const int base = static_cast<int>(rank) * kTracksPerRank;
      if (rank < trial.step.size()) {
        const StepSpan& step = trial.step[rank];
        add_track(events, pid, base, fmt::format("{}: timed trial #{}", who, trial.step_trial));
        events.push_back(slice(fmt::format("{} burst ({} ops)", to_string(trial.phase), trial.ops_per_step),
                               trial.phase, pid, base, step.arrival_us, step.step_us,
                               {{"trial", trial.step_trial},
                                {"rank", rank},
                                {"tokens", trial.tokens},
                                {"ops", trial.ops_per_step},
                                {"bytes", step.bytes},
                                {"step_us", step.step_us},
                                {"arrival_us", step.arrival_us}}));
        if (step.launch_us) {
          add_track(events, pid, base + 1, fmt::format("{}: enqueue (host)", who));
          events.push_back(
              slice("enqueue burst", trial.phase, pid, base + 1, step.arrival_us, *step.launch_us,
                    {{"trial", trial.step_trial}, {"rank", rank}, {"launch_us", *step.launch_us}}));
        }
      }
      if (rank < trial.ranks.size() && !trial.ranks[rank].empty()) {
        add_track(events, pid, base + 2,
                  fmt::format("{}: per-op pass trial #{} (each op timed alone)", who, trial.op_trial));
        for (const OpSpan& op : trial.ranks[rank])
          events.push_back(slice(op_name(trial.phase, op), trial.phase, pid, base + 2, op.start_us,
                                 op.end_us - op.start_us,
                                 {{"op_index", op.op_index},
                                  {"layer", op.layer},
                                  {"tokens", trial.tokens},
                                  {"rank", rank},
                                  {"bytes", op.bytes}}));
      }
    }
  }
  return {
      {"traceEvents", std::move(events)},
      {"displayTimeUnit", "ms"},
      {"otherData",
       {{"tool", "k25comm"},
        {"clock",
         "microseconds from each rank's own trial start (the exit of the trial's barrier); clocks of different ranks are aligned only by that barrier. "
         "A timed trial's burst is placed at the rank's arrival and lasts its measured step (the transport's clock: GPU events on nccl); its enqueue slice is host time. "
         "The per-op pass is a separate trial whose ops were timed one by one."}}}};
}

}  // namespace k25
