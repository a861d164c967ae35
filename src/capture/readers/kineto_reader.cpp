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

enum class EventKind { other, kernel, memcpy, memset, launch, host_annotation, gpu_annotation };

EventKind kind_of(std::string_view cat) {
  if (cat == "kernel" || cat == "Kernel") return EventKind::kernel;
  if (cat == "gpu_memcpy" || cat == "Memcpy") return EventKind::memcpy;
  if (cat == "gpu_memset" || cat == "Memset") return EventKind::memset;
  if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime" || cat == "Driver")
    return EventKind::launch;
  if (cat == "user_annotation") return EventKind::host_annotation;
  if (cat == "gpu_user_annotation") return EventKind::gpu_annotation;
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

void KinetoReader::Impl::read(FileBytes& bytes, const std::string& name, TraceCapture& capture) {
  const std::size_t file_index = capture.files.size(), first_rank = capture.ranks.size();
  const std::size_t first_activity = capture.activities.size(), first_mark = capture.marks.size();
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
  element events_value;
  simdjson::dom::array events;
  if (root.get_object().get(top) != simdjson::SUCCESS ||
      top["traceEvents"].get(events_value) != simdjson::SUCCESS ||
      events_value.get_array().get(events) != simdjson::SUCCESS)
    throw UsageError(fmt::format(
        "{}: JSON, but neither a profiler trace (no traceEvents array) nor NCCL Inspector output", name));

  // The run's facts: distributedInfo (top level, or under metadata in some writers) and the base time.
  TraceRank facts;
  facts.file = file_index;
  std::optional<int> info_rank;
  element info;
  object metadata, info_obj;
  const bool has_info = top["distributedInfo"].get(info) == simdjson::SUCCESS ||
                        (top["metadata"].get_object().get(metadata) == simdjson::SUCCESS &&
                         metadata["distributedInfo"].get(info) == simdjson::SUCCESS);
  if (has_info && info.get_object().get(info_obj) == simdjson::SUCCESS) {
    element v;
    if (info_obj["rank"].get(v) == simdjson::SUCCESS)
      if (const auto r = integer(v); r && *r >= 0 && *r < (1 << 24)) info_rank = static_cast<int>(*r);
    if (info_obj["world_size"].get(v) == simdjson::SUCCESS)
      if (const auto w = integer(v); w && *w > 0 && *w < (1 << 24)) facts.world_size = static_cast<int>(*w);
    if (info_obj["backend"].get(v) == simdjson::SUCCESS) facts.backend = std::string(string_or_empty(v));
    if (info_obj["nccl_version"].get(v) == simdjson::SUCCESS)
      facts.nccl_version = std::string(string_or_empty(v));
  }
  std::int64_t base_ns = 0;
  element base;
  if (top["baseTimeNanoseconds"].get(base) == simdjson::SUCCESS) {
    if (const auto b = integer(base); b && *b > 0 && *b < INT64_MAX / 2) base_ns = *b;
  } else if (file.cut) {
    facts.absolute_clock = false;
    file.notes.push_back(
        "no baseTimeNanoseconds (cut off): if its times are relative to it, they are this file's own and are not joined with other ranks'");
  }

  // Events. GPU activities per device (a rank each); host launches and marks to find the marks' windows.
  std::map<std::int64_t, std::uint32_t> rank_of_device;
  std::vector<std::uint64_t> correlation_of;
  std::vector<HostLaunch> launches;
  std::vector<HostMark> host_marks;
  std::unordered_set<std::uint64_t> graph_correlations;
  std::vector<StepMark> gpu_marks;
  std::vector<std::int64_t> gpu_mark_device;
  const auto rank_for = [&](std::int64_t device) {
    const auto found = rank_of_device.find(device);
    if (found != rank_of_device.end()) return found->second;
    const auto index = static_cast<std::uint32_t>(capture.ranks.size());
    TraceRank rank = facts;
    rank.device = static_cast<int>(std::clamp<std::int64_t>(device, -1, 1 << 24));
    capture.ranks.push_back(std::move(rank));
    rank_of_device.emplace(device, index);
    return index;
  };
  const auto thread_of = [](const std::optional<element>& pid, const std::optional<element>& tid) {
    const auto hash = [](const std::optional<element>& v) -> std::uint64_t {
      if (!v) return 0;
      if (const auto i = integer(*v)) return static_cast<std::uint64_t>(*i);
      return std::hash<std::string_view>{}(string_or_empty(*v));
    };
    return hash(pid) * 0x9E3779B97F4A7C15ULL ^ hash(tid);
  };
  const auto number_of = [](const std::optional<element>& v, std::int64_t otherwise) {
    return v ? integer(*v).value_or(otherwise) : otherwise;
  };

  for (const element event : events) {
    ++file.events;
    object ev;
    if (event.get_object().get(ev) != simdjson::SUCCESS) continue;
    std::string_view ph, cat, event_name;
    std::optional<element> pid, tid;
    element ts, dur, args;
    bool has_ts = false, has_dur = false, has_args = false;
    for (const auto field : ev) {
      const std::string_view key = field.key;
      if (key.size() < 2 || key.size() > 4) continue;
      if (key == "ph") {
        ph = string_or_empty(field.value);
      } else if (key == "cat") {
        cat = string_or_empty(field.value);
      } else if (key == "name") {
        event_name = string_or_empty(field.value);
      } else if (key == "pid") {
        pid = field.value;
      } else if (key == "tid") {
        tid = field.value;
      } else if (key == "ts") {
        ts = field.value;
        has_ts = true;
      } else if (key == "dur") {
        dur = field.value;
        has_dur = true;
      } else if (key == "args") {
        args = field.value;
        has_args = true;
      }
    }
    if (ph != "X" || !has_ts) continue;
    const EventKind kind = kind_of(cat);
    if (kind == EventKind::other) continue;
    const auto start = nanoseconds(ts);
    if (!start) continue;
    const std::int64_t start_ns = base_ns + *start;
    std::int64_t dur_ns = 0;
    if (has_dur) {
      const auto d = nanoseconds(dur);
      if (!d || *d < 0) continue;
      dur_ns = *d;
    }
    const EventArgs a = has_args ? read_args(args) : EventArgs{};
    switch (kind) {
      case EventKind::kernel:
      case EventKind::memcpy:
      case EventKind::memset: {
        GpuActivity activity;
        activity.start_ns = start_ns;
        activity.end_ns = start_ns + dur_ns;
        activity.type = kind == EventKind::kernel   ? GpuActivityType::kernel
                        : kind == EventKind::memcpy ? GpuActivityType::memcpy
                                                    : GpuActivityType::memset;
        const std::int64_t device = a.device ? *a.device : number_of(pid, -1);
        activity.rank = rank_for(device);
        activity.stream = static_cast<std::uint32_t>(a.stream ? *a.stream : number_of(tid, 0));
        activity.name = capture.names.intern(event_name);
        if (a.graph) activity.launch = LaunchMode::graph;
        if (kind == EventKind::kernel) {
          ++file.kernels;
          activity.bytes = c10d_bytes(a);
          if (!a.dtype.empty()) activity.dtype = capture.names.intern(a.dtype);
          if (!a.collective.empty()) activity.collective = capture.names.intern(a.collective);
        } else {
          ++file.copies;
        }
        capture.activities.push_back(activity);
        correlation_of.push_back(a.correlation ? static_cast<std::uint64_t>(*a.correlation) : 0);
        break;
      }
      case EventKind::launch:
        if (!a.correlation || *a.correlation == 0) break;
        launches.push_back({thread_of(pid, tid), start_ns, static_cast<std::uint64_t>(*a.correlation)});
        if (event_name.find("GraphLaunch") != std::string_view::npos) {
          ++file.graph_launches;
          graph_correlations.insert(static_cast<std::uint64_t>(*a.correlation));
        }
        break;
      case EventKind::host_annotation:
        if (!may_be_step_mark(event_name) || !parse_step_mark(event_name)) break;
        {
          HostMark mark;
          mark.thread = thread_of(pid, tid);
          mark.mark.name = capture.names.intern(event_name);
          mark.mark.host_start_ns = start_ns;
          mark.mark.host_end_ns = start_ns + dur_ns;
          host_marks.push_back(mark);
        }
        break;
      case EventKind::gpu_annotation:
        if (!may_be_step_mark(event_name) || !parse_step_mark(event_name)) break;
        {
          StepMark mark;
          mark.name = capture.names.intern(event_name);
          mark.gpu_side = true;
          mark.has_window = true;
          mark.gpu_start_ns = start_ns;
          mark.gpu_end_ns = start_ns + dur_ns;
          gpu_marks.push_back(mark);
          gpu_mark_device.push_back(a.device ? *a.device : number_of(pid, -1));
        }
        break;
      case EventKind::other:
        break;
    }
  }

  if (capture.activities.size() == first_activity) {
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

  // Launch modes: a kernel whose correlation is a graph launch's was replayed by a CUDA graph; with host
  // launches in the trace every other kernel was launched on its own.
  const bool launches_seen = !launches.empty();
  for (std::size_t i = first_activity; i < capture.activities.size(); ++i) {
    GpuActivity& activity = capture.activities[i];
    if (activity.launch == LaunchMode::graph) continue;
    if (graph_correlations.contains(correlation_of[i - first_activity]))
      activity.launch = LaunchMode::graph;
    else if (launches_seen && activity.type == GpuActivityType::kernel)
      activity.launch = LaunchMode::eager;
  }

  set_launch_times(launches, capture.activities, first_activity, correlation_of);
  // Step marks: host marks get the window of what they launched (and the rank of its device).
  // GPU-side spans give their host mark its window where it has none, never a step of their own.
  resolve_step_marks(host_marks, launches, capture.activities, first_activity, correlation_of, capture.marks);
  for (std::size_t m = 0; m < gpu_marks.size(); ++m) gpu_marks[m].rank = rank_for(gpu_mark_device[m]);
  file.step_marks = attach_gpu_spans(gpu_marks, capture.marks, first_mark);

  // Rank numbers: distributedInfo, else the file name, else the device.
  const std::optional<int> by_name = rank_from_name(name);
  const std::size_t ranks = capture.ranks.size() - first_rank;
  for (std::size_t r = first_rank; r < capture.ranks.size(); ++r) {
    TraceRank& rank = capture.ranks[r];
    if (ranks == 1 && info_rank) {
      rank.rank = *info_rank;
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
