// The trace model's helpers: interned names, the GPU window of each step mark, merging per-file captures.
#include "capture/model/trace_model.hpp"

#include <algorithm>
#include <limits>
#include <tuple>

#include "common/error.hpp"

namespace k25 {

std::uint32_t NameTable::intern(std::string_view name) {
  const auto found = index_.find(name);
  if (found != index_.end()) return found->second;
  if (names_.size() >= std::numeric_limits<std::uint32_t>::max())
    throw UsageError("too many distinct names in the traces");
  const auto index = static_cast<std::uint32_t>(names_.size());
  names_.emplace_back(name);
  index_.emplace(names_.back(), index);
  return index;
}

namespace {

// The most frequent name among the top-level spans (those inside no other span of their thread), with 2 or
// more; its spans by start. Empty where none repeats.
std::vector<HostSpan> top_level_repeated(std::vector<HostSpan>& spans) {
  std::sort(spans.begin(), spans.end(), [](const HostSpan& a, const HostSpan& b) {
    return std::tie(a.thread, a.start_ns) < std::tie(b.thread, b.start_ns);
  });
  std::vector<HostSpan> top;
  for (const HostSpan& span : spans)
    if (top.empty() || top.back().thread != span.thread || span.start_ns >= top.back().end_ns)
      top.push_back(span);
  std::unordered_map<std::uint32_t, std::size_t> count;
  for (const HostSpan& span : top) ++count[span.name];
  std::uint32_t best = 0;
  std::size_t most = 0;
  for (const auto& [name, n] : count)
    if (n > most || (n == most && name < best)) {
      most = n;
      best = name;
    }
  std::vector<HostSpan> chosen;
  if (most < 2) return chosen;
  for (const HostSpan& span : top)
    if (span.name == best) chosen.push_back(span);
  std::sort(chosen.begin(), chosen.end(),
            [](const HostSpan& a, const HostSpan& b) { return a.start_ns < b.start_ns; });
  return chosen;
}

HostMark iteration_mark(std::uint32_t name, std::int64_t start_ns, std::int64_t end_ns) {
  HostMark hm;
  hm.any_thread = true;
  hm.mark.name = name;
  hm.mark.host_start_ns = start_ns;
  hm.mark.host_end_ns = end_ns;
  return hm;
}

}  // namespace

std::size_t add_iteration_marks(std::vector<HostSpan>& optimizer_steps, std::vector<HostSpan>& module_calls,
                                const std::vector<HostLaunch>& launches, std::vector<HostMark>& host_marks) {
  const std::size_t before = host_marks.size();
  if (!launches.empty()) {
    std::int64_t first = INT64_MAX, last = INT64_MIN;
    for (const HostLaunch& l : launches) {
      first = std::min(first, l.ts_ns);
      last = std::max(last, l.ts_ns);
    }
    std::sort(optimizer_steps.begin(), optimizer_steps.end(),
              [](const HostSpan& a, const HostSpan& b) { return a.start_ns < b.start_ns; });
    std::int64_t from = first;
    for (const HostSpan& step : optimizer_steps) {
      if (step.end_ns < from) continue;
      host_marks.push_back(iteration_mark(step.name, from, step.end_ns));
      from = step.end_ns + 1;
    }
    const std::vector<HostSpan> calls = top_level_repeated(module_calls);
    for (std::size_t i = 0; i < calls.size(); ++i)
      host_marks.push_back(iteration_mark(calls[i].name, calls[i].start_ns,
                                          i + 1 < calls.size() ? calls[i + 1].start_ns - 1 : last));
  }
  optimizer_steps.clear();
  module_calls.clear();
  return host_marks.size() - before;
}

void resolve_step_marks(std::vector<HostMark>& host_marks, std::vector<HostLaunch>& launches,
                        const std::vector<GpuActivity>& activities, std::size_t first,
                        const std::vector<std::uint64_t>& correlation_of, std::vector<StepMark>& marks) {
  // Launches by time, for the marks that take every thread's (training iterations).
  std::vector<HostLaunch> by_time;
  if (std::any_of(host_marks.begin(), host_marks.end(), [](const HostMark& hm) { return hm.any_thread; })) {
    by_time = launches;
    std::sort(by_time.begin(), by_time.end(),
              [](const HostLaunch& a, const HostLaunch& b) { return a.ts_ns < b.ts_ns; });
  }
  std::sort(launches.begin(), launches.end(), [](const HostLaunch& a, const HostLaunch& b) {
    return std::tie(a.thread, a.ts_ns) < std::tie(b.thread, b.ts_ns);
  });
  // Each correlation a mark's launches carry -> the marks that want its activities' window.
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> wanted;
  for (std::size_t m = 0; m < host_marks.size(); ++m) {
    const HostMark& hm = host_marks[m];
    if (hm.mark.gpu_side) continue;
    if (hm.any_thread) {
      auto it = std::lower_bound(by_time.begin(), by_time.end(), hm.mark.host_start_ns,
                                 [](const HostLaunch& l, std::int64_t t) { return l.ts_ns < t; });
      for (; it != by_time.end() && it->ts_ns <= hm.mark.host_end_ns; ++it)
        wanted[it->correlation].push_back(static_cast<std::uint32_t>(m));
      continue;
    }
    auto it =
        std::lower_bound(launches.begin(), launches.end(), hm, [](const HostLaunch& l, const HostMark& k) {
          return std::tie(l.thread, l.ts_ns) < std::tie(k.thread, k.mark.host_start_ns);
        });
    for (; it != launches.end() && it->thread == hm.thread && it->ts_ns <= hm.mark.host_end_ns; ++it)
      wanted[it->correlation].push_back(static_cast<std::uint32_t>(m));
  }
  for (std::size_t i = first; i < activities.size(); ++i) {
    const std::uint64_t correlation = correlation_of[i - first];
    if (correlation == 0) continue;
    const auto found = wanted.find(correlation);
    if (found == wanted.end()) continue;
    const GpuActivity& a = activities[i];
    for (std::uint32_t m : found->second) {
      StepMark& mark = host_marks[m].mark;
      if (!mark.has_window) {
        mark.has_window = true;
        mark.rank = a.rank;
        mark.gpu_start_ns = a.start_ns;
        mark.gpu_end_ns = a.end_ns;
      } else {
        mark.gpu_start_ns = std::min(mark.gpu_start_ns, a.start_ns);
        mark.gpu_end_ns = std::max(mark.gpu_end_ns, a.end_ns);
      }
    }
  }
  for (HostMark& hm : host_marks) marks.push_back(hm.mark);
  host_marks.clear();
  launches.clear();
}

std::size_t attach_gpu_spans(std::vector<StepMark>& gpu_spans, std::vector<StepMark>& marks,
                             std::size_t first_mark) {
  const auto by_time = [](const StepMark& a, const StepMark& b) {
    return std::tie(a.host_start_ns, a.gpu_start_ns) < std::tie(b.host_start_ns, b.gpu_start_ns);
  };
  std::stable_sort(marks.begin() + static_cast<std::ptrdiff_t>(first_mark), marks.end(), by_time);
  std::stable_sort(gpu_spans.begin(), gpu_spans.end(), by_time);
  // Per name: the host marks in time order, and how many spans have been paired with them.
  std::unordered_map<std::uint32_t, std::pair<std::vector<std::size_t>, std::size_t>> host_of;
  for (std::size_t m = first_mark; m < marks.size(); ++m) host_of[marks[m].name].first.push_back(m);
  for (const StepMark& span : gpu_spans) {
    const auto found = host_of.find(span.name);
    if (found == host_of.end()) {
      marks.push_back(span);
      continue;
    }
    auto& [hosts, paired] = found->second;
    if (paired >= hosts.size()) continue;  // more spans than host marks: the host mark is the step
    StepMark& host = marks[hosts[paired++]];
    if (host.has_window) continue;
    host.has_window = true;
    host.rank = span.rank;
    host.gpu_start_ns = span.gpu_start_ns;
    host.gpu_end_ns = span.gpu_end_ns;
  }
  gpu_spans.clear();
  return marks.size() - first_mark;
}

void set_launch_times(const std::vector<HostLaunch>& launches, std::vector<GpuActivity>& activities,
                      std::size_t first, const std::vector<std::uint64_t>& correlation_of) {
  std::unordered_map<std::uint64_t, std::int64_t> launch_of;
  launch_of.reserve(launches.size());
  for (const HostLaunch& l : launches) launch_of.emplace(l.correlation, l.ts_ns);
  for (std::size_t i = first; i < activities.size(); ++i) {
    const auto found = launch_of.find(correlation_of[i - first]);
    if (found != launch_of.end() && correlation_of[i - first] != 0) activities[i].launch_ns = found->second;
  }
}

void append_trace(TraceCapture& into, TraceCapture& part) {
  std::vector<std::uint32_t> name_map(part.names.size());
  for (std::uint32_t i = 0; i < part.names.size(); ++i) name_map[i] = into.names.intern(part.names[i]);
  const auto rank_offset = static_cast<std::uint32_t>(into.ranks.size());
  const std::size_t file_offset = into.files.size();
  for (TraceRank& rank : part.ranks) {
    rank.file += file_offset;
    into.ranks.push_back(std::move(rank));
  }
  for (TraceFile& file : part.files) into.files.push_back(std::move(file));
  into.activities.reserve(into.activities.size() + part.activities.size());
  for (GpuActivity a : part.activities) {
    a.name = name_map[a.name];
    a.dtype = name_map[a.dtype];
    a.collective = name_map[a.collective];
    a.rank += rank_offset;
    into.activities.push_back(a);
  }
  for (StepMark m : part.marks) {
    m.name = name_map[m.name];
    m.rank += rank_offset;
    into.marks.push_back(m);
  }
  for (std::string& note : part.notes) into.notes.push_back(std::move(note));
}

}  // namespace k25
