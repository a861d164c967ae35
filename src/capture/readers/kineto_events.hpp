// One Kineto file's events into the trace model, as simdjson's On-Demand parser walks them: GPU activities
// per device (a rank each) with c10d's sizes on collective kernels, the host calls that launched them, the
// engine's step marks and the host's training iterations; times relative to the file's base time until its
// end, where the base (libkineto writes it after the events) is known.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "capture/model/trace_model.hpp"

namespace k25 {

// What the top-level object says of the run, wherever in it: distributedInfo (top level, or under metadata in
// some writers) and the base time the event times are relative to.
struct KinetoFacts {
  std::optional<int> rank;
  int world_size = 0;
  std::string backend, nccl_version;
  std::optional<std::int64_t> base_ns;
};

// Reads one top-level field into `facts` where it is one of theirs; false for any other key.
bool read_kineto_fact(std::string_view key, simdjson::ondemand::value value, KinetoFacts& facts);

// A key's text as the JSON holds it ("" where it holds an escape: no key of a trace's does).
std::string_view json_key(simdjson::ondemand::raw_json_string key);

class KinetoEvents {
 public:
  KinetoEvents(TraceCapture& capture, std::size_t file);

  // One element of the events array (an event object; anything else is counted and skipped). Throws
  // simdjson_error where the JSON breaks off inside it: nothing of it is kept.
  void read(simdjson::ondemand::value element);

  bool any_activity() const { return capture_.activities.size() > first_activity_; }

  // The file's base time added to every time read, launch modes and times, the marks' windows (the engine's
  // marks, the host's iterations, the GPU-side spans), and each rank's facts.
  void finish(const KinetoFacts& facts);

 private:
  struct Event;
  void add(const Event& e);
  std::uint32_t rank_for(std::int64_t device);
  void add_activity(const Event& e, std::int64_t start_ns, std::int64_t dur_ns);
  void add_launch(const Event& e, std::int64_t start_ns);
  void add_mark(const Event& e, bool gpu_side, std::int64_t start_ns, std::int64_t dur_ns);
  void add_iteration_event(const Event& e, std::int64_t start_ns, std::int64_t dur_ns);
  void shift_times(std::int64_t base_ns);
  void set_launch_modes();

  TraceCapture& capture_;
  std::size_t file_;
  const std::size_t first_activity_, first_mark_, first_rank_;
  std::map<std::int64_t, std::uint32_t> rank_of_device_;
  std::vector<std::uint64_t> correlation_of_;
  std::vector<HostLaunch> launches_;
  std::vector<HostMark> host_marks_;
  std::vector<HostSpan> optimizer_steps_, module_calls_;
  std::unordered_set<std::uint64_t> graph_correlations_;
  std::vector<StepMark> gpu_marks_;
  std::vector<std::int64_t> gpu_mark_device_;
};

}  // namespace k25
