// A GPU timeline as a profiler trace holds it (PyTorch/Kineto JSON, Nsight Systems SQLite), in no format's
// terms: per rank, its GPU activities (kernels, copies, sets) with their names and the sizes a trace may
// give, and the host's step marks with the GPU window of the work each one launched. Readers fill it; the
// trace analysis reads it.
#pragma once

#include <climits>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/capture_input_file.hpp"
#include "common/error.hpp"

namespace k25 {

enum class GpuActivityType : std::uint8_t { kernel, memcpy, memset };

// How a kernel was launched, as far as the trace tells: by a CUDA graph replay (cudaGraphLaunch, a graph id
// on the kernel) or one by one.
enum class LaunchMode : std::uint8_t { unknown, eager, graph };

// One GPU activity. Times are nanoseconds on the trace's clock (since the epoch where the trace says so).
struct GpuActivity {
  std::int64_t start_ns = 0, end_ns = 0;
  std::uint32_t name = 0;  // index into TraceCapture::names
  std::uint32_t rank = 0;  // index into TraceCapture::ranks
  std::uint32_t stream = 0;
  GpuActivityType type = GpuActivityType::kernel;
  LaunchMode launch = LaunchMode::unknown;
  // Message bytes as the trace records them (c10d's record_param_comms args on the kernel, NCCL's NVTX
  // payload): the count NCCL's call takes times the element size (AllReduce the vector, AllGather each
  // rank's part, ReduceScatter each rank's part of the result); 0 where the trace has none.
  std::uint64_t bytes = 0;
  std::uint32_t dtype = 0;  // index into TraceCapture::names of the trace's element type; 0: none
  // Index into TraceCapture::names of the collective c10d's args name ("allreduce", "broadcast"); 0: none.
  std::uint32_t collective = 0;
  // When the host call that launched it ran (the runtime event of its correlation id); kNoLaunch where the
  // trace has none.
  std::int64_t launch_ns = INT64_MIN;
};
inline constexpr std::int64_t kNoLaunch = INT64_MIN;

// A step mark of the serving engine (vLLM's execute_..., SGLang's step[...], torch's ProfilerStep#N) with the
// GPU window of the work launched under it: from the first start to the last end of the activities whose
// launch falls inside the mark on its thread (or the span itself, for a GPU-side annotation).
struct StepMark {
  std::uint32_t rank = 0;
  std::uint32_t name = 0;  // index into TraceCapture::names
  std::int64_t host_start_ns = 0, host_end_ns = 0;
  bool gpu_side = false;    // a gpu_user_annotation span: no host times
  bool has_window = false;  // some GPU work was found under it
  std::int64_t gpu_start_ns = 0, gpu_end_ns = 0;
};

// One rank's trace (one device of one process).
struct TraceRank {
  std::size_t file = 0;     // index into TraceCapture::files
  int rank = -1;            // the rank number
  std::string rank_source;  // "distributedInfo", "file name", "device" or "process order"
  int world_size = 0;       // 0: the trace does not say
  int device = -1;          // the GPU's index as the trace gives it
  std::string process;      // "pid 1234" or the process name, for messages
  std::string backend, nccl_version;
  bool absolute_clock = true;  // false: the file's base time was lost (a cut file): times are its own
};

// What was read from one trace file.
struct TraceFile {
  std::string path;
  InputFormat format = InputFormat::kineto;
  std::uint64_t events = 0;  // trace events (Kineto) or rows (nsys) read
  std::uint64_t kernels = 0, copies = 0, step_marks = 0;
  std::uint64_t graph_launches = 0;  // host calls that replay a CUDA graph
  bool cut = false;                  // the file ends early (a trace still being written)
  std::string cut_reason;
  std::vector<std::string> notes;  // per file: what was assumed or left out
};

// A trace that holds no GPU event (a host-only trace, such as vLLM's frontend writes beside its workers'):
// refused when given by name, skipped with a note in a folder.
class TraceWithoutGpuEvents : public UsageError {
 public:
  using UsageError::UsageError;
};

// Interned strings (kernel names, mark names, dtypes): index 0 is "".
class NameTable {
 public:
  NameTable() { intern(""); }
  std::uint32_t intern(std::string_view name);
  const std::string& operator[](std::uint32_t index) const { return names_[index]; }
  std::size_t size() const { return names_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const noexcept {
      return std::hash<std::string_view>{}(text);
    }
  };
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> index_;
};

struct TraceCapture {
  std::vector<TraceFile> files;
  std::vector<TraceRank> ranks;
  std::vector<GpuActivity> activities;  // in file order; each rank's by start after finish_trace()
  std::vector<StepMark> marks;
  NameTable names;
  std::vector<std::string> notes;
  bool empty() const { return files.empty(); }
};

// Host calls that launched GPU work, kept while a process is read, to find each mark's GPU window.
struct HostLaunch {
  std::uint64_t thread = 0;
  std::int64_t ts_ns = 0;
  std::uint64_t correlation = 0;
};
struct HostMark {
  std::uint64_t thread = 0;
  bool any_thread = false;  // a training iteration: the launches inside it on every thread are its work
  StepMark mark;
};

// A host event that shows a training iteration (the optimizer's step, a top-level module call).
struct HostSpan {
  std::uint64_t thread = 0;
  std::int64_t start_ns = 0, end_ns = 0;
  std::uint32_t name = 0;  // index into TraceCapture::names
};

// The host's training iterations of one process as marks over every thread (its backward runs on autograd's
// own): from each optimizer step's end (the process's first launch, for the first) to the next one's end;
// and from each start of the most frequent top-level module call to the next one's (the last to the process's
// last launch). Nothing where the process launched nothing. Returns how many marks were added.
std::size_t add_iteration_marks(std::vector<HostSpan>& optimizer_steps, std::vector<HostSpan>& module_calls,
                                const std::vector<HostLaunch>& launches, std::vector<HostMark>& host_marks);

// Resolves the GPU window of each host mark of one process: the activities (indices into `activities`) whose
// correlation id belongs to a launch on the mark's thread inside the mark. `correlation_of[i]` is the
// correlation of activities[first + i]. Appends the marks to `marks`.
void resolve_step_marks(std::vector<HostMark>& host_marks, std::vector<HostLaunch>& launches,
                        const std::vector<GpuActivity>& activities, std::size_t first,
                        const std::vector<std::uint64_t>& correlation_of, std::vector<StepMark>& marks);

// Gives each GPU-side span (a gpu_user_annotation of a step mark) to its host mark: the k-th span of a name
// pairs with the k-th host mark of that name among marks[first_mark..]; a host mark without a GPU window of
// its own takes the span's. A span is kept as a mark of its own only where no host mark has its name (a trace
// without host events). Returns the marks kept.
std::size_t attach_gpu_spans(std::vector<StepMark>& gpu_spans, std::vector<StepMark>& marks,
                             std::size_t first_mark);

// Sets each activity's launch_ns from the launch with its correlation id (activities[first + i] has
// correlation_of[i]).
void set_launch_times(const std::vector<HostLaunch>& launches, std::vector<GpuActivity>& activities,
                      std::size_t first, const std::vector<std::uint64_t>& correlation_of);

// Merges another capture (one file read on its own) into `into`, renumbering names, ranks and files. `part`'s
// ranks, files and notes are moved out; its activities and marks are copied (their room stays for reuse).
void append_trace(TraceCapture& into, TraceCapture& part);
inline void append_trace(TraceCapture& into, TraceCapture&& part) {
  append_trace(into, part);
}

}  // namespace k25
