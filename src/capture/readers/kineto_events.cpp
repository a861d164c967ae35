// Kineto events into the trace model: each event's fields read in place as the parser walks them.
#include "capture/readers/kineto_events.hpp"

#include <algorithm>
#include <cstring>

#include "capture/model/step_marks.hpp"
#include "capture/readers/json_tokens.hpp"

namespace k25 {

// The fields KinetoEvents::Event holds, outside the anonymous namespace: Event (declared in the header) has
// external linkage.
namespace kineto_event_fields {

enum class EventKind : std::uint8_t {
  unknown,  // no "cat" seen yet
  other,
  kernel,
  memcpy,
  memset,
  launch,
  host_annotation,
  gpu_annotation,
  host_op
};

// What the event's args hold that the model needs.
struct EventArgs {
  std::optional<std::int64_t> device, stream, correlation;
  bool graph = false;  // "graph id" / "graph node id" (Kineto 2026 and later)
  std::string_view collective, dtype;
  std::optional<std::int64_t> in_nelems, out_nelems;
};

// A pid or tid: an integer, or the hash of its text.
struct Id {
  std::string_view token;
  std::optional<std::int64_t> number() const { return token.empty() ? std::nullopt : integer_of(token); }
  std::uint64_t hash() const {
    if (token.empty()) return 0;
    if (const auto n = number()) return static_cast<std::uint64_t>(*n);
    return std::hash<std::string_view>{}(plain_string(token).value_or(token));
  }
};

}  // namespace kineto_event_fields

namespace {

using kineto_event_fields::EventArgs;
using kineto_event_fields::EventKind;
using kineto_event_fields::Id;

using simdjson::ondemand::value;
using JsonObject = simdjson::ondemand::object;

// The text of a string value, without copying where it needs no unescaping; "" where it is no string.
std::string_view string_value(value v) {
  if (const auto plain = plain_string(v.raw_json_token())) return *plain;
  std::string_view text;
  return v.get_string().get(text) == simdjson::SUCCESS ? text : std::string_view{};
}

std::optional<std::int64_t> integer_value(value v) {
  return integer_of(v.raw_json_token());
}

// Bytes of one element of c10's dtype names (record_param_comms' "dtype").
std::uint64_t c10_dtype_bytes(std::string_view dtype) {
  static const std::map<std::string_view, std::uint64_t> kBytes = {{"Float", 4},
                                                                   {"BFloat16", 2},
                                                                   {"Half", 2},
                                                                   {"Double", 8},
                                                                   {"Int", 4},
                                                                   {"Long", 8},
                                                                   {"Short", 2},
                                                                   {"Char", 1},
                                                                   {"Byte", 1},
                                                                   {"Bool", 1},
                                                                   {"Float8_e4m3fn", 1},
                                                                   {"Float8_e5m2", 1},
                                                                   {"Float8_e4m3fnuz", 1},
                                                                   {"Float8_e5m2fnuz", 1},
                                                                   {"UInt16", 2},
                                                                   {"UInt32", 4},
                                                                   {"UInt64", 8},
                                                                   {"ComplexFloat", 8},
                                                                   {"ComplexDouble", 16}};
  const auto found = kBytes.find(dtype);
  return found == kBytes.end() ? 0 : found->second;
}

EventKind kind_of(std::string_view cat) {
  if (cat == "kernel" || cat == "Kernel") return EventKind::kernel;
  if (cat == "gpu_memcpy" || cat == "Memcpy") return EventKind::memcpy;
  if (cat == "gpu_memset" || cat == "Memset") return EventKind::memset;
  if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime" || cat == "Driver")
    return EventKind::launch;
  if (cat == "user_annotation") return EventKind::host_annotation;
  if (cat == "gpu_user_annotation") return EventKind::gpu_annotation;
  if (cat == "cpu_op" || cat == "python_function") return EventKind::host_op;
  return EventKind::other;
}

// Whether the model needs the event's args (its device, stream, correlation, c10d's fields).
bool wants_args(EventKind kind) {
  return kind != EventKind::other && kind != EventKind::host_annotation && kind != EventKind::host_op;
}

EventArgs read_args(value v) {
  EventArgs a;
  JsonObject args;
  if (v.get_object().get(args) != simdjson::SUCCESS) return a;
  for (auto field : args) {
    const std::string_view key = json_key(field.key());
    value item = field.value();
    switch (key.size()) {
      case 6:
        if (key == "device") a.device = integer_value(item);
        if (key == "stream") a.stream = integer_value(item);
        break;
      case 5:
        if (key == "dtype") a.dtype = string_value(item);
        break;
      case 8:
        if (key == "graph id") a.graph = true;
        break;
      case 11:
        if (key == "correlation") a.correlation = integer_value(item);
        break;
      case 13:
        if (key == "graph node id") a.graph = true;
        if (key == "In msg nelems") a.in_nelems = integer_value(item);
        break;
      case 14:
        if (key == "Out msg nelems") a.out_nelems = integer_value(item);
        break;
      case 15:
        if (key == "Collective name") a.collective = string_value(item);
        break;
      default:
        break;
    }
  }
  return a;
}

// The message bytes of a collective kernel from c10d's args: NCCL's count times the element size (a
// ReduceScatter's count is its output's).
std::uint64_t c10d_bytes(const EventArgs& a) {
  const std::uint64_t element_bytes = c10_dtype_bytes(a.dtype);
  if (element_bytes == 0 || a.collective.empty()) return 0;
  const bool scatter = a.collective.find("reduce_scatter") != std::string_view::npos;
  const std::optional<std::int64_t> n = scatter ? a.out_nelems : a.in_nelems;
  if (!n || *n <= 0 || static_cast<std::uint64_t>(*n) > UINT64_MAX / element_bytes) return 0;
  return static_cast<std::uint64_t>(*n) * element_bytes;
}

}  // namespace

std::string_view json_key(simdjson::ondemand::raw_json_string key) {
  const char* text = key.raw();
  std::size_t n = 0;
  while (text[n] != '"') {
    if (text[n] == '\\') return {};
    ++n;
  }
  return {text, n};
}

bool read_kineto_fact(std::string_view key, value v, KinetoFacts& facts) {
  if (key == "baseTimeNanoseconds") {
    if (const auto b = integer_value(v); b && *b > 0 && *b < INT64_MAX / 2) facts.base_ns = *b;
    return true;
  }
  if (key == "metadata") {  // some writers put distributedInfo under metadata
    JsonObject metadata;
    if (v.get_object().get(metadata) != simdjson::SUCCESS) return true;
    for (auto field : metadata)
      if (json_key(field.key()) == "distributedInfo")
        read_kineto_fact("distributedInfo", field.value(), facts);
    return true;
  }
  if (key != "distributedInfo") return false;
  JsonObject info;
  if (v.get_object().get(info) != simdjson::SUCCESS) return true;
  for (auto field : info) {
    const std::string_view name = json_key(field.key());
    value item = field.value();
    if (name == "rank") {
      if (const auto r = integer_value(item); r && *r >= 0 && *r < (1 << 24))
        facts.rank = static_cast<int>(*r);
    } else if (name == "world_size") {
      if (const auto w = integer_value(item); w && *w > 0 && *w < (1 << 24))
        facts.world_size = static_cast<int>(*w);
    } else if (name == "backend") {
      facts.backend = std::string(string_value(item));
    } else if (name == "nccl_version") {
      facts.nccl_version = std::string(string_value(item));
    }
  }
  return true;
}

// The fields of one event the model needs, as views into the document.
struct KinetoEvents::Event {
  std::string_view ph, cat, name, ts, dur;
  Id pid, tid;
  EventKind kind = EventKind::unknown;
  EventArgs args;
  std::uint64_t thread() const { return pid.hash() * 0x9E3779B97F4A7C15ULL ^ tid.hash(); }
};

KinetoEvents::KinetoEvents(TraceCapture& capture, std::size_t file)
    : capture_(capture),
      file_(file),
      first_activity_(capture.activities.size()),
      first_mark_(capture.marks.size()),
      first_rank_(capture.ranks.size()) {}

void KinetoEvents::read(value element) {
  ++capture_.files[file_].events;
  JsonObject ev;
  if (element.get_object().get(ev) != simdjson::SUCCESS) return;
  Event e;
  for (auto field_result : ev) {
    simdjson::ondemand::field field = std::move(field_result);  // throws where the JSON breaks off
    const std::string_view key = json_key(field.key());
    value v = field.value();
    switch (key.size()) {
      case 2:
        if (key == "ph") e.ph = string_value(v);
        if (key == "ts") e.ts = v.raw_json_token();
        break;
      case 3:
        if (key == "cat") {
          e.cat = string_value(v);
          e.kind = kind_of(e.cat);
        } else if (key == "pid") {
          e.pid.token = v.raw_json_token();
        } else if (key == "tid") {
          e.tid.token = v.raw_json_token();
        } else if (key == "dur") {
          e.dur = v.raw_json_token();
        }
        break;
      case 4:
        if (key == "name") e.name = string_value(v);
        if (key == "args" && (e.kind == EventKind::unknown || wants_args(e.kind))) e.args = read_args(v);
        break;
      default:
        break;
    }
  }
  add(e);
}

void KinetoEvents::add(const Event& e) {
  if (e.ph != "X" || e.ts.empty()) return;
  const EventKind kind = e.kind == EventKind::unknown ? EventKind::other : e.kind;
  if (kind == EventKind::other) return;
  const auto start = microseconds_to_ns(e.ts);
  if (!start) return;
  std::int64_t dur_ns = 0;
  if (!e.dur.empty()) {
    const auto d = microseconds_to_ns(e.dur);
    if (!d || *d < 0 || *start > INT64_MAX / 2 || *d > INT64_MAX / 4) return;
    dur_ns = *d;
  }
  switch (kind) {
    case EventKind::kernel:
    case EventKind::memcpy:
    case EventKind::memset:
      add_activity(e, *start, dur_ns);
      break;
    case EventKind::launch:
      add_launch(e, *start);
      break;
    case EventKind::host_annotation:
    case EventKind::gpu_annotation:
      if (may_be_step_mark(e.name) && parse_step_mark(e.name)) {
        add_mark(e, kind == EventKind::gpu_annotation, *start, dur_ns);
        break;
      }
      if (kind == EventKind::host_annotation) add_iteration_event(e, *start, dur_ns);
      break;
    case EventKind::host_op:
      add_iteration_event(e, *start, dur_ns);
      break;
    case EventKind::unknown:
    case EventKind::other:
      break;
  }
}

std::uint32_t KinetoEvents::rank_for(std::int64_t device) {
  const auto found = rank_of_device_.find(device);
  if (found != rank_of_device_.end()) return found->second;
  const auto index = static_cast<std::uint32_t>(capture_.ranks.size());
  TraceRank rank;
  rank.file = file_;
  rank.device = static_cast<int>(std::clamp<std::int64_t>(device, -1, 1 << 24));
  capture_.ranks.push_back(std::move(rank));
  rank_of_device_.emplace(device, index);
  return index;
}

void KinetoEvents::add_activity(const Event& e, std::int64_t start_ns, std::int64_t dur_ns) {
  const EventArgs& a = e.args;
  GpuActivity activity;
  activity.start_ns = start_ns;
  activity.end_ns = start_ns + dur_ns;
  activity.type = e.kind == EventKind::kernel   ? GpuActivityType::kernel
                  : e.kind == EventKind::memcpy ? GpuActivityType::memcpy
                                                : GpuActivityType::memset;
  activity.rank = rank_for(a.device ? *a.device : e.pid.number().value_or(-1));
  activity.stream = static_cast<std::uint32_t>(a.stream ? *a.stream : e.tid.number().value_or(0));
  activity.name = capture_.names.intern(e.name);
  if (a.graph) activity.launch = LaunchMode::graph;
  TraceFile& file = capture_.files[file_];
  if (e.kind == EventKind::kernel) {
    ++file.kernels;
    activity.bytes = c10d_bytes(a);
    if (!a.dtype.empty()) activity.dtype = capture_.names.intern(a.dtype);
    if (!a.collective.empty()) activity.collective = capture_.names.intern(a.collective);
  } else {
    ++file.copies;
  }
  capture_.activities.push_back(activity);
  correlation_of_.push_back(a.correlation ? static_cast<std::uint64_t>(*a.correlation) : 0);
}

void KinetoEvents::add_launch(const Event& e, std::int64_t start_ns) {
  const std::optional<std::int64_t>& correlation = e.args.correlation;
  if (!correlation || *correlation == 0) return;
  launches_.push_back({e.thread(), start_ns, static_cast<std::uint64_t>(*correlation)});
  if (e.name.find("GraphLaunch") == std::string_view::npos) return;
  ++capture_.files[file_].graph_launches;
  graph_correlations_.insert(static_cast<std::uint64_t>(*correlation));
}

void KinetoEvents::add_mark(const Event& e, bool gpu_side, std::int64_t start_ns, std::int64_t dur_ns) {
  StepMark mark;
  mark.name = capture_.names.intern(e.name);
  if (!gpu_side) {
    mark.host_start_ns = start_ns;
    mark.host_end_ns = start_ns + dur_ns;
    host_marks_.push_back({e.thread(), false, mark});
    return;
  }
  mark.gpu_side = true;
  mark.has_window = true;
  mark.gpu_start_ns = start_ns;
  mark.gpu_end_ns = start_ns + dur_ns;
  gpu_marks_.push_back(mark);
  gpu_mark_device_.push_back(e.args.device ? *e.args.device : e.pid.number().value_or(-1));
}

// The optimizer's step (an annotation or an operator) and Python module calls: the host's iterations.
void KinetoEvents::add_iteration_event(const Event& e, std::int64_t start_ns, std::int64_t dur_ns) {
  const bool optimizer = e.name.starts_with(kOptimizerStepPrefix);
  if (!optimizer && (e.cat != "python_function" || !e.name.starts_with(kModuleCallPrefix))) return;
  (optimizer ? optimizer_steps_ : module_calls_)
      .push_back({e.thread(), start_ns, start_ns + dur_ns, capture_.names.intern(e.name)});
}

void KinetoEvents::shift_times(std::int64_t base_ns) {
  if (base_ns == 0) return;
  for (std::size_t i = first_activity_; i < capture_.activities.size(); ++i) {
    capture_.activities[i].start_ns += base_ns;
    capture_.activities[i].end_ns += base_ns;
  }
  for (HostLaunch& l : launches_) l.ts_ns += base_ns;
  for (HostMark& hm : host_marks_) {
    hm.mark.host_start_ns += base_ns;
    hm.mark.host_end_ns += base_ns;
  }
  for (StepMark& m : gpu_marks_) {
    m.gpu_start_ns += base_ns;
    m.gpu_end_ns += base_ns;
  }
  for (std::vector<HostSpan>* spans : {&optimizer_steps_, &module_calls_})
    for (HostSpan& s : *spans) {
      s.start_ns += base_ns;
      s.end_ns += base_ns;
    }
}

// A kernel whose correlation is a graph launch's was replayed by a CUDA graph; with host launches in the
// trace every other kernel was launched on its own.
void KinetoEvents::set_launch_modes() {
  const bool launches_seen = !launches_.empty();
  for (std::size_t i = first_activity_; i < capture_.activities.size(); ++i) {
    GpuActivity& activity = capture_.activities[i];
    if (activity.launch == LaunchMode::graph) continue;
    if (graph_correlations_.contains(correlation_of_[i - first_activity_]))
      activity.launch = LaunchMode::graph;
    else if (launches_seen && activity.type == GpuActivityType::kernel)
      activity.launch = LaunchMode::eager;
  }
}

void KinetoEvents::finish(const KinetoFacts& facts) {
  shift_times(facts.base_ns.value_or(0));
  set_launch_modes();
  set_launch_times(launches_, capture_.activities, first_activity_, correlation_of_);
  // The host's iterations are marks the file does not hold as such: not among its step marks.
  const std::size_t iterations = add_iteration_marks(optimizer_steps_, module_calls_, launches_, host_marks_);
  resolve_step_marks(host_marks_, launches_, capture_.activities, first_activity_, correlation_of_,
                     capture_.marks);
  // GPU-side spans give their host mark its window where it has none, never a step of their own.
  for (std::size_t m = 0; m < gpu_marks_.size(); ++m) gpu_marks_[m].rank = rank_for(gpu_mark_device_[m]);
  capture_.files[file_].step_marks = attach_gpu_spans(gpu_marks_, capture_.marks, first_mark_) - iterations;
  // A mark that launched no GPU work belongs to the file's (first) rank: it is counted there.
  for (std::size_t m = first_mark_; m < capture_.marks.size(); ++m)
    if (!capture_.marks[m].has_window) capture_.marks[m].rank = static_cast<std::uint32_t>(first_rank_);
  for (std::size_t r = first_rank_; r < capture_.ranks.size(); ++r) {
    TraceRank& rank = capture_.ranks[r];
    rank.world_size = facts.world_size;
    rank.backend = facts.backend;
    rank.nccl_version = facts.nccl_version;
  }
}

}  // namespace k25
