// Trace files through the capture's one door, alone or a window's together, and a trace as a live step.
#include "live_profile/live_trace_read.hpp"

#include <algorithm>
#include <limits>
#include <string_view>

#include <fmt/format.h>

#include "capture/analysis/capture_analysis.hpp"
#include "capture/model/trace_model.hpp"
#include "capture/readers/file_bytes.hpp"
#include "capture/render/trace_headline.hpp"
#include "capture/trace_files.hpp"
#include "common/error.hpp"

namespace k25 {

namespace {

// The capture's note on `path` being cut ("PATH: the gzip stream ends early ..."), or a plain one.
std::string cut_reason(const TraceResult& trace, const std::string& path) {
  const std::string prefix = path + ": ";
  for (const std::string& note : trace.notes)
    if (note.rfind(prefix, 0) == 0) return note;
  return path + ": it ends early (a trace still being written)";
}

// What the capture said, as `k25comm capture` prints it (a k25comm error's message without the rank and host
// that what() adds under MPI).
std::string capture_words(const std::exception& e) {
  const auto* error = dynamic_cast<const Error*>(&e);
  return error != nullptr ? error->message() : e.what();
}

// Why `path` is still being written, or empty: a gzip stream that ends early, or a JSON document not yet
// closed. Asked only of a file the capture refused: a trace cut before its first GPU event reads as one
// without GPU events, or as no JSON at all, until it is whole.
std::string still_written(const std::string& path) {
  try {
    const FileBytes bytes = load_file_bytes(path, 0);
    if (bytes.cut) return path + ": " + bytes.cut_reason;
    const std::string_view text(bytes.data(), bytes.size());
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    const std::size_t last = text.find_last_not_of(" \t\r\n");
    if (first != std::string_view::npos && text[first] == '{' && text[last] != '}')
      return path + ": its JSON is not closed yet (a trace still being written?)";
  } catch (const std::exception&) {
    // unreadable: the refusal says so
  }
  return "";
}

}  // namespace

LiveTraceReader::LiveTraceReader(const std::optional<RunConfig>& config) {
  if (config) {
    if (!config->serve.profile_kernel_classes.empty())
      rules_.kernel_class_tables.push_back(config->serve.profile_kernel_classes);
    rules_.model = capture_model(config->model);
    rules_.model->graph_sizes = config->sweep.graph_sizes;
  }
  rules_problem_ = trace_rules_problem(rules_);
}

TraceFileFacts LiveTraceReader::facts(const std::string& path) const {
  TraceFileFacts facts;
  try {
    const CaptureResult capture = analyze_capture_files({path}, rules_);
    if (!capture.trace.present) {
      facts.reason = path + ": not a profiler trace (no GPU events read from it)";
      return facts;
    }
    const TraceResult& trace = capture.trace;
    bool cut = false;
    std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = 0;
    for (const TraceRankResult& rank : trace.ranks) {
      facts.ranks.push_back(rank.rank);
      facts.world_size = std::max(facts.world_size, rank.world_size);
      cut = cut || rank.cut;
      if (rank.last_ns <= rank.first_ns) continue;
      first = std::min(first, rank.first_ns);
      last = std::max(last, rank.last_ns);
    }
    if (last > 0) {
      facts.first_unix_s = static_cast<double>(first) / 1e9;
      facts.last_unix_s = static_cast<double>(last) / 1e9;
    }
    facts.state = cut ? TraceFileState::cut : TraceFileState::whole;
    if (cut) facts.reason = cut_reason(trace, path);
  } catch (const TraceWithoutGpuEvents& e) {
    facts.state = TraceFileState::host_only;
    facts.reason = capture_words(e);
  } catch (const std::exception& e) {  // UsageError: what `k25comm capture` refuses; else a fault reading it
    facts.state = TraceFileState::refused;
    facts.reason = capture_words(e);
  }
  if (facts.state == TraceFileState::host_only || facts.state == TraceFileState::refused) {
    if (std::string cut = still_written(path); !cut.empty()) {
      facts.state = TraceFileState::cut;
      facts.reason = std::move(cut);
    }
  }
  return facts;
}

TraceRead LiveTraceReader::read(const std::vector<std::string>& paths) const {
  TraceRead read;
  try {
    CaptureResult capture = analyze_capture_files(paths, rules_);
    if (capture.trace.present)
      read.trace = std::move(capture.trace);
    else
      read.problem = "no profiler trace with GPU events among the files";
  } catch (const std::exception& e) {
    read.problem = capture_words(e);
  }
  return read;
}

void fill_live_step(LiveStepLevel& level, const TraceResult& trace) {
  const std::vector<const TraceStepGroup*> groups = headline_groups(trace, 1);
  if (groups.empty()) {
    level.status = LiveStepStatus::failed;
    level.note = "the traces hold no step the capture could find: " + trace.step_method_detail;
    return;
  }
  const TraceStepGroup& g = *groups.front();
  level.status = LiveStepStatus::read;
  level.step = step_title(g, trace.step_method);
  level.batch = g.batch;
  level.steps = g.steps;
  level.wall_us = g.wall_us.p50;
  level.gpu_busy_us = g.busy_us.p50;
  level.comm_merged_us = g.comm_merged_us.p50;
  level.comm_exposed_us = g.comm_exposed_us.p50;
  level.comm_share = g.comm_share;
  level.exposed_share = g.exposed_share;
  level.comm_busy_share = g.busy_us.p50 > 0 ? g.comm_merged_us.p50 / g.busy_us.p50 : 0;
  level.kinds.clear();
  level.classes.clear();
  for (const TraceKindShare& k : g.kinds)
    level.kinds.push_back({k.kind, k.ops_per_step, k.merged_us.p50, k.share});
  for (const TraceClassShare& c : g.classes) level.classes.push_back({c.cls, c.merged_us.p50, c.share});
  level.backends.clear();
  level.backend_rules.clear();
  for (const BackendRow& b : trace.backends)
    level.backends.push_back({b.kind, b.bytes, b.backend, b.count, b.op_us_p50});
  for (const BackendRuleNote& n : trace.backend_rules)
    level.backend_rules.push_back({n.backend, n.ranks, n.rule, n.source});
}

int trace_world_size(const TraceResult& trace) {
  int size = 0;
  for (const TraceRankResult& rank : trace.ranks) size = std::max(size, rank.world_size);
  return size;
}

std::string capture_command_line(const std::string& config_path, const std::string& inputs) {
  return fmt::format("k25comm capture {}{}", inputs, config_path.empty() ? "" : " --model " + config_path);
}

}  // namespace k25
