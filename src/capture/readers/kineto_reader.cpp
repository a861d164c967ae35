// Kineto JSON into the trace model: simdjson's DOM over one file at a time, its events walked once.
#include "capture/readers/kineto_reader.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <unordered_set>

#include <fmt/format.h>

#include "capture/model/step_marks.hpp"
#include "capture/readers/file_bytes.hpp"
#include "common/error.hpp"

namespace k25 {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

// Room after the text for simdjson's padding and for closing a cut document.
constexpr std::size_t kSuffixRoom = 8;
constexpr std::size_t kPadding = simdjson::SIMDJSON_PADDING + kSuffixRoom;
// A cut document is closed at one of the last '}' or ']' before its end: at most this many are tried.
constexpr int kRepairAttempts = 48;
constexpr std::size_t kRepairWindow = 1 << 20;

// Nanoseconds from a Kineto time in microseconds (integer or with decimals); nullopt when not a number.
std::optional<std::int64_t> nanoseconds(element value) {
  std::int64_t i = 0;
  if (value.get_int64().get(i) == simdjson::SUCCESS) {
    if (i > INT64_MAX / 1000 || i < INT64_MIN / 1000) return std::nullopt;
    return i * 1000;
  }
  // Three decimals of microseconds are exact nanoseconds: the double is within half an ulp of the decimal
  // (under 0.5 ns below 2^43 us, 101 days), and the product in long double keeps it so.
  double d = 0;
  if (value.get_double().get(d) == simdjson::SUCCESS && std::isfinite(d) && std::fabs(d) < 9e15)
    return static_cast<std::int64_t>(std::llroundl(static_cast<long double>(d) * 1000.0L));
  return std::nullopt;
}

std::optional<std::int64_t> integer(element value) {
  std::int64_t i = 0;
  if (value.get_int64().get(i) == simdjson::SUCCESS) return i;
  std::uint64_t u = 0;
  if (value.get_uint64().get(u) == simdjson::SUCCESS) return static_cast<std::int64_t>(u >> 1);
  double d = 0;
  if (value.get_double().get(d) == simdjson::SUCCESS && std::isfinite(d) && std::fabs(d) < 9e18)
    return static_cast<std::int64_t>(d);
  return std::nullopt;
}

std::string_view string_or_empty(element value) {
  std::string_view s;
  return value.get_string().get(s) == simdjson::SUCCESS ? s : std::string_view{};
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

enum class EventKind { other, kernel, memcpy, memset, launch, host_annotation, gpu_annotation, host_op };

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

// The rank a vLLM (...-rank-N.) or SGLang (...-TP-N) file name gives.
std::optional<int> rank_from_name(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  for (const std::string_view tag : {std::string_view("-rank-"), std::string_view("-TP-")}) {
    const std::size_t at = name.rfind(tag);
    if (at == std::string::npos) continue;
    std::size_t i = at + tag.size();
    int value = 0, digits = 0;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9' && digits < 7) {
      value = value * 10 + (name[i] - '0');
      ++i;
      ++digits;
    }
    if (digits > 0 && (i == name.size() || name[i] == '.' || name[i] == '-' || name[i] == '_')) return value;
  }
  return std::nullopt;
}

// What the event's args hold that the model needs.
struct EventArgs {
  std::optional<std::int64_t> device, stream, correlation;
  bool graph = false;  // "graph id" / "graph node id" (Kineto 2026 and later)
  std::string_view collective, dtype;
  std::optional<std::int64_t> in_nelems, out_nelems;
};

EventArgs read_args(element value) {
  EventArgs a;
  object args;
  if (value.get_object().get(args) != simdjson::SUCCESS) return a;
  for (const auto field : args) {
    const std::string_view key = field.key;
    if (key == "device") {
      a.device = integer(field.value);
    } else if (key == "stream") {
      a.stream = integer(field.value);
    } else if (key == "correlation") {
      a.correlation = integer(field.value);
    } else if (key == "graph id" || key == "graph node id") {
      a.graph = true;
    } else if (key == "Collective name") {
      a.collective = string_or_empty(field.value);
    } else if (key == "dtype") {
      a.dtype = string_or_empty(field.value);
    } else if (key == "In msg nelems") {
      a.in_nelems = integer(field.value);
    } else if (key == "Out msg nelems") {
      a.out_nelems = integer(field.value);
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

struct KinetoReader::Impl {
  simdjson::dom::parser parser;
  FileBytes text;  // the last file's text: its buffer is reused for the next (pages already mapped)

  void read(FileBytes& bytes, const std::string& name, TraceCapture& capture);
  element parse_or_repair(FileBytes& bytes, const std::string& name, TraceFile& file);
};

KinetoReader::KinetoReader() : impl_(std::make_unique<Impl>()) {}
KinetoReader::~KinetoReader() = default;

element KinetoReader::Impl::parse_or_repair(FileBytes& bytes, const std::string& name, TraceFile& file) {
  element root;
  // Room for files a little larger than this one: the next file of a run reuses the parser's buffers as they
  // are.
  if (bytes.size() > parser.capacity() && bytes.size() < simdjson::SIMDJSON_MAXSIZE_BYTES / 2)
      // On failure the parse below allocates what it needs itself.
      [[maybe_unused]]
    const simdjson::error_code reserved = parser.allocate(bytes.size() + bytes.size() / 4);
  const auto error = parser.parse(bytes.data(), bytes.size(), false).get(root);
  if (error == simdjson::SUCCESS) return root;
  // A trace still being written ends inside an event (or after the events): close the document at one of
  // the last '}' or ']' and keep what is whole.
  std::size_t begin = 0;
  while (begin < bytes.size() && std::isspace(static_cast<unsigned char>(bytes.data()[begin]))) ++begin;
  if (begin < bytes.size() && bytes.data()[begin] == '{' && error != simdjson::CAPACITY) {
    const std::size_t size = bytes.size();
    const std::size_t floor = size > kRepairWindow ? size - kRepairWindow : begin;
    int attempts = 0;
    for (std::size_t p = size; p-- > floor && attempts < kRepairAttempts;) {
      const char ch = bytes.data()[p];
      if (ch != '}' && ch != ']') continue;
      for (const std::string_view suffix : {std::string_view("]}"), std::string_view("}")}) {
        ++attempts;
        char saved[kSuffixRoom];
        std::memcpy(saved, bytes.data() + p + 1, kSuffixRoom);
        std::memcpy(bytes.data() + p + 1, suffix.data(), suffix.size());
        const auto repaired = parser.parse(bytes.data(), p + 1 + suffix.size(), false).get(root);
        std::memcpy(bytes.data() + p + 1, saved, kSuffixRoom);
        object obj;
        element events;
        if (repaired == simdjson::SUCCESS && root.get_object().get(obj) == simdjson::SUCCESS &&
            obj["traceEvents"].get(events) == simdjson::SUCCESS) {
          file.cut = true;
          file.cut_reason = fmt::format(
              "the JSON ends early ({}): read up to byte {} of {}, the event cut there is left out",
              simdjson::error_message(error), p + 1, size);
          return root;
        }
      }
    }
  }
  throw UsageError(
      fmt::format("{}: not a profiler trace: {} (JSON expected)", name, simdjson::error_message(error)));
}

namespace {

// The run's facts of one file: distributedInfo (top level, or under metadata in some writers) and the base
// time its timestamps are relative to.
struct FileFacts {
  TraceRank rank;  // the facts every rank of the file shares
  std::optional<int> info_rank;
  std::int64_t base_ns = 0;
};

FileFacts file_facts(object top, std::size_t file_index, TraceFile& file) {
  FileFacts facts;
  facts.rank.file = file_index;
  element info;
  object metadata, info_obj;
  const bool has_info = top["distributedInfo"].get(info) == simdjson::SUCCESS ||
                        (top["metadata"].get_object().get(metadata) == simdjson::SUCCESS &&
                         metadata["distributedInfo"].get(info) == simdjson::SUCCESS);
  if (has_info && info.get_object().get(info_obj) == simdjson::SUCCESS) {
    element v;
    if (info_obj["rank"].get(v) == simdjson::SUCCESS)
      if (const auto r = integer(v); r && *r >= 0 && *r < (1 << 24)) facts.info_rank = static_cast<int>(*r);
    if (info_obj["world_size"].get(v) == simdjson::SUCCESS)
      if (const auto w = integer(v); w && *w > 0 && *w < (1 << 24))
        facts.rank.world_size = static_cast<int>(*w);
    if (info_obj["backend"].get(v) == simdjson::SUCCESS) facts.rank.backend = std::string(string_or_empty(v));
    if (info_obj["nccl_version"].get(v) == simdjson::SUCCESS)
      facts.rank.nccl_version = std::string(string_or_empty(v));
  }
  element base;
  if (top["baseTimeNanoseconds"].get(base) == simdjson::SUCCESS) {
    if (const auto b = integer(base); b && *b > 0 && *b < INT64_MAX / 2) facts.base_ns = *b;
  } else if (file.cut) {
    facts.rank.absolute_clock = false;
    file.notes.push_back(
        "no baseTimeNanoseconds (cut off): if its times are relative to it, they are this file's own and are not joined with other ranks'");
  }
  return facts;
}

// The fields of one event the model needs.
struct RawEvent {
  std::string_view ph, cat, name;
  std::optional<element> pid, tid;
  element ts, dur, args;
  bool has_ts = false, has_dur = false, has_args = false;
};

RawEvent raw_event(object ev) {
  RawEvent e;
  for (const auto field : ev) {
    const std::string_view key = field.key;
    if (key.size() < 2 || key.size() > 4) continue;
    if (key == "ph") {
      e.ph = string_or_empty(field.value);
    } else if (key == "cat") {
      e.cat = string_or_empty(field.value);
    } else if (key == "name") {
      e.name = string_or_empty(field.value);
    } else if (key == "pid") {
      e.pid = field.value;
    } else if (key == "tid") {
      e.tid = field.value;
    } else if (key == "ts") {
      e.ts = field.value;
      e.has_ts = true;
    } else if (key == "dur") {
      e.dur = field.value;
      e.has_dur = true;
    } else if (key == "args") {
      e.args = field.value;
      e.has_args = true;
    }
  }
  return e;
}

std::uint64_t thread_of(const std::optional<element>& pid, const std::optional<element>& tid) {
  const auto hash = [](const std::optional<element>& v) -> std::uint64_t {
    if (!v) return 0;
    if (const auto i = integer(*v)) return static_cast<std::uint64_t>(*i);
    return std::hash<std::string_view>{}(string_or_empty(*v));
  };
  return hash(pid) * 0x9E3779B97F4A7C15ULL ^ hash(tid);
}

std::int64_t number_of(const std::optional<element>& v, std::int64_t otherwise) {
  return v ? integer(*v).value_or(otherwise) : otherwise;
}

// One file's events into the capture: GPU activities per device (a rank each); host launches and marks kept
// to find the marks' windows and the launch modes once the file is read.
class FileEvents {
 public:
  FileEvents(TraceCapture& capture, TraceFile& file, const FileFacts& facts)
      : capture_(capture),
        file_(file),
        facts_(facts),
        first_activity_(capture.activities.size()),
        first_mark_(capture.marks.size()),
        first_rank_(capture.ranks.size()) {}

  void add(const RawEvent& e, EventKind kind, std::int64_t start_ns, std::int64_t dur_ns) {
    const EventArgs a = e.has_args ? read_args(e.args) : EventArgs{};
    switch (kind) {
      case EventKind::kernel:
      case EventKind::memcpy:
      case EventKind::memset:
        add_activity(e, kind, a, start_ns, dur_ns);
        break;
      case EventKind::launch:
        add_launch(e, a, start_ns);
        break;
      case EventKind::host_annotation:
      case EventKind::gpu_annotation:
        if (may_be_step_mark(e.name) && parse_step_mark(e.name)) {
          add_mark(e, kind, a, start_ns, dur_ns);
          break;
        }
        [[fallthrough]];
      case EventKind::host_op:
        if (kind != EventKind::gpu_annotation) add_iteration_event(e, start_ns, dur_ns);
        break;
      case EventKind::other:
        break;
    }
  }

  bool any_activity() const { return capture_.activities.size() > first_activity_; }

  // Launch modes, launch times and the marks' windows.
  void finish() {
    set_launch_modes();
    set_launch_times(launches_, capture_.activities, first_activity_, correlation_of_);
    // GPU-side spans give their host mark its window where it has none, never a step of their own.
    // The host's iterations are marks the file does not hold as such: not among its step marks.
    const std::size_t iterations =
        add_iteration_marks(optimizer_steps_, module_calls_, launches_, host_marks_);
    resolve_step_marks(host_marks_, launches_, capture_.activities, first_activity_, correlation_of_,
                       capture_.marks);
    for (std::size_t m = 0; m < gpu_marks_.size(); ++m) gpu_marks_[m].rank = rank_for(gpu_mark_device_[m]);
    file_.step_marks = attach_gpu_spans(gpu_marks_, capture_.marks, first_mark_) - iterations;
    // A mark that launched no GPU work belongs to the file's (first) rank: it is counted there.
    for (std::size_t m = first_mark_; m < capture_.marks.size(); ++m)
      if (!capture_.marks[m].has_window) capture_.marks[m].rank = static_cast<std::uint32_t>(first_rank_);
  }

 private:
  std::uint32_t rank_for(std::int64_t device) {
    const auto found = rank_of_device_.find(device);
    if (found != rank_of_device_.end()) return found->second;
    const auto index = static_cast<std::uint32_t>(capture_.ranks.size());
    TraceRank rank = facts_.rank;
    rank.device = static_cast<int>(std::clamp<std::int64_t>(device, -1, 1 << 24));
    capture_.ranks.push_back(std::move(rank));
    rank_of_device_.emplace(device, index);
    return index;
  }

  void add_activity(const RawEvent& e, EventKind kind, const EventArgs& a, std::int64_t start_ns,
                    std::int64_t dur_ns) {
    GpuActivity activity;
    activity.start_ns = start_ns;
    activity.end_ns = start_ns + dur_ns;
    activity.type = kind == EventKind::kernel   ? GpuActivityType::kernel
                    : kind == EventKind::memcpy ? GpuActivityType::memcpy
                                                : GpuActivityType::memset;
    activity.rank = rank_for(a.device ? *a.device : number_of(e.pid, -1));
    activity.stream = static_cast<std::uint32_t>(a.stream ? *a.stream : number_of(e.tid, 0));
    activity.name = capture_.names.intern(e.name);
    if (a.graph) activity.launch = LaunchMode::graph;
    if (kind == EventKind::kernel) {
      ++file_.kernels;
      activity.bytes = c10d_bytes(a);
      if (!a.dtype.empty()) activity.dtype = capture_.names.intern(a.dtype);
      if (!a.collective.empty()) activity.collective = capture_.names.intern(a.collective);
    } else {
      ++file_.copies;
    }
    capture_.activities.push_back(activity);
    correlation_of_.push_back(a.correlation ? static_cast<std::uint64_t>(*a.correlation) : 0);
  }

  void add_launch(const RawEvent& e, const EventArgs& a, std::int64_t start_ns) {
    if (!a.correlation || *a.correlation == 0) return;
    launches_.push_back({thread_of(e.pid, e.tid), start_ns, static_cast<std::uint64_t>(*a.correlation)});
    if (e.name.find("GraphLaunch") == std::string_view::npos) return;
    ++file_.graph_launches;
    graph_correlations_.insert(static_cast<std::uint64_t>(*a.correlation));
  }

  void add_mark(const RawEvent& e, EventKind kind, const EventArgs& a, std::int64_t start_ns,
                std::int64_t dur_ns) {
    StepMark mark;
    mark.name = capture_.names.intern(e.name);
    if (kind == EventKind::host_annotation) {
      mark.host_start_ns = start_ns;
      mark.host_end_ns = start_ns + dur_ns;
      host_marks_.push_back({thread_of(e.pid, e.tid), false, mark});
      return;
    }
    mark.gpu_side = true;
    mark.has_window = true;
    mark.gpu_start_ns = start_ns;
    mark.gpu_end_ns = start_ns + dur_ns;
    gpu_marks_.push_back(mark);
    gpu_mark_device_.push_back(a.device ? *a.device : number_of(e.pid, -1));
  }

  // The optimizer's step (an annotation or an operator) and Python module calls: the host's iterations.
  void add_iteration_event(const RawEvent& e, std::int64_t start_ns, std::int64_t dur_ns) {
    const bool optimizer = e.name.starts_with(kOptimizerStepPrefix);
    if (!optimizer && (e.cat != "python_function" || !e.name.starts_with(kModuleCallPrefix))) return;
    (optimizer ? optimizer_steps_ : module_calls_)
        .push_back({thread_of(e.pid, e.tid), start_ns, start_ns + dur_ns, capture_.names.intern(e.name)});
  }

  // A kernel whose correlation is a graph launch's was replayed by a CUDA graph; with host launches in the
  // trace every other kernel was launched on its own.
  void set_launch_modes() {
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

  TraceCapture& capture_;
  TraceFile& file_;
  const FileFacts& facts_;
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

// Rank numbers: distributedInfo, else the file name, else the device.
void number_ranks(TraceCapture& capture, std::size_t first_rank, const FileFacts& facts,
                  const std::string& name, TraceFile& file) {
  const std::optional<int> by_name = rank_from_name(name);
  const std::size_t ranks = capture.ranks.size() - first_rank;
  for (std::size_t r = first_rank; r < capture.ranks.size(); ++r) {
    TraceRank& rank = capture.ranks[r];
    if (ranks == 1 && facts.info_rank) {
      rank.rank = *facts.info_rank;
      rank.rank_source = "distributedInfo";
    } else if (ranks == 1 && by_name) {
      rank.rank = *by_name;
      rank.rank_source = "file name";
    } else {
      rank.rank = std::max(rank.device, 0);
      rank.rank_source = "device";
    }
    rank.process = std::filesystem::path(name).filename().string();
  }
  if (ranks > 1)
    file.notes.push_back(fmt::format(
        "GPU events on {} devices: each device is taken as a rank, numbered by its device", ranks));
}

// The events array of a trace's top-level object; throws where there is none.
simdjson::dom::array trace_events(element root, object& top, const std::string& name) {
  element events_value;
  simdjson::dom::array events;
  if (root.get_object().get(top) != simdjson::SUCCESS ||
      top["traceEvents"].get(events_value) != simdjson::SUCCESS ||
      events_value.get_array().get(events) != simdjson::SUCCESS)
    throw UsageError(fmt::format(
        "{}: JSON, but neither a profiler trace (no traceEvents array) nor NCCL Inspector output", name));
  return events;
}

// Every complete event ("X") of a kind the model takes, with its times, into `into`.
void read_events(simdjson::dom::array events, std::int64_t base_ns, TraceFile& file, FileEvents& into) {
  for (const element event : events) {
    ++file.events;
    object ev;
    if (event.get_object().get(ev) != simdjson::SUCCESS) continue;
    const RawEvent e = raw_event(ev);
    if (e.ph != "X" || !e.has_ts) continue;
    const EventKind kind = kind_of(e.cat);
    if (kind == EventKind::other) continue;
    const auto start = nanoseconds(e.ts);
    if (!start) continue;
    std::int64_t dur_ns = 0;
    if (e.has_dur) {
      const auto d = nanoseconds(e.dur);
      if (!d || *d < 0) continue;
      dur_ns = *d;
    }
    into.add(e, kind, base_ns + *start, dur_ns);
  }
}

}  // namespace

void KinetoReader::Impl::read(FileBytes& bytes, const std::string& name, TraceCapture& capture) {
  const std::size_t file_index = capture.files.size(), first_rank = capture.ranks.size();
  const std::size_t first_mark = capture.marks.size();
  capture.files.emplace_back();
  TraceFile& file = capture.files.back();
  file.path = name;
  file.format = "kineto";
  const std::string gzip_cut = bytes.cut ? bytes.cut_reason : "";
  element root = parse_or_repair(bytes, name, file);
  if (!gzip_cut.empty()) {  // the gzip stream ended early, and the JSON with it (where it was repaired)
    file.cut = true;
    file.cut_reason = file.cut_reason.empty() ? gzip_cut : gzip_cut + "; " + file.cut_reason;
  }
  object top;
  const simdjson::dom::array events = trace_events(root, top, name);
  const FileFacts facts = file_facts(top, file_index, file);
  FileEvents into(capture, file, facts);
  read_events(events, facts.base_ns, file, into);
  if (!into.any_activity()) {
    const std::string message =
        file.cut ? fmt::format("{}: no whole GPU event before the file is cut ({})", name, file.cut_reason)
                 : fmt::format(
                       "{}: a profiler trace without GPU events (no kernel, memcpy or memset): "
                       "profile with ProfilerActivity.CUDA",
                       name);
    capture.files.pop_back();  // the capture is as it was (a folder skips such a file)
    capture.ranks.resize(first_rank);
    capture.marks.resize(first_mark);
    throw TraceWithoutGpuEvents(message);
  }
  into.finish();
  number_ranks(capture, first_rank, facts, name, file);
}

void KinetoReader::read_file(const std::string& path, TraceCapture& into) {
  impl_->text = load_file_bytes(path, kPadding, std::move(impl_->text));
  impl_->read(impl_->text, path, into);
}

TraceCapture KinetoReader::read_text(std::string_view text, const std::string& name) {
  TraceCapture capture;
  FileBytes bytes = file_bytes_from_text(text, name, kPadding);
  impl_->read(bytes, name, capture);
  return capture;
}

}  // namespace k25
