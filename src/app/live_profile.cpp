// Waits for a profile window's trace files, links them per level, and reads them with the capture's readers.
#include "app/live_profile.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "capture/analysis/capture_analysis.hpp"
#include "capture/readers/file_bytes.hpp"
#include "capture/render/trace_headline.hpp"
#include "capture/trace_files.hpp"
#include "common/error.hpp"
#include "common/interrupt.hpp"
#include "config/config_loader.hpp"

namespace k25 {

namespace fs = std::filesystem;

namespace {

using FileSizes = std::map<std::string, std::uintmax_t>;

double unix_seconds(fs::file_time_type time) {
  const auto system = std::chrono::file_clock::to_sys(time);
  return std::chrono::duration<double>(system.time_since_epoch()).count();
}

// The regular files of `dir` written since `since_unix_s` that no earlier window claimed, with their sizes.
FileSizes new_files(const std::string& dir, double since_unix_s, const std::set<std::string>& claimed) {
  FileSizes files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file(ec)) continue;
    const std::string path = fs::absolute(entry.path()).string();
    if (claimed.count(path) > 0) continue;
    const auto written = entry.last_write_time(ec);
    if (ec || unix_seconds(written) < since_unix_s) continue;
    files[path] = entry.file_size(ec);
  }
  return files;
}

// The first of `files` that is a JSON document still being written, with why: a gzip stream that ends early
// (the capture's own reader says so), or a JSON text whose last character is not the closing brace. Files
// that are not JSON are the capture's to judge.
std::string first_incomplete(const FileSizes& files) {
  for (const auto& [path, size] : files) {
    try {
      const FileBytes bytes = load_file_bytes(path, 0);
      if (bytes.cut) return path + ": " + bytes.cut_reason;
      const std::string_view text(bytes.data(), bytes.size());
      const std::size_t first = text.find_first_not_of(" \t\r\n");
      const std::size_t last = text.find_last_not_of(" \t\r\n");
      if (first != std::string_view::npos && text[first] == '{' && text[last] != '}')
        return path + ": its JSON is not closed yet (a trace still being written?)";
    } catch (const UsageError& e) {
      return e.what();
    }
  }
  return {};
}

// The link folder OUT/live-profile/cC holding one link per trace file (made afresh).
std::string link_folder(const RunConfig& config, int concurrency, const FileSizes& files) {
  const fs::path folder = fs::path(config.output.dir) / "live-profile" / fmt::format("c{}", concurrency);
  fs::remove_all(folder);
  fs::create_directories(folder);
  for (const auto& [path, size] : files) fs::create_symlink(path, folder / fs::path(path).filename());
  return folder.string();
}

std::string capture_command(const std::string& config_path, const std::string& inputs) {
  return fmt::format("k25comm capture {}{}", inputs, config_path.empty() ? "" : " --model " + config_path);
}

std::string capture_command(const RunConfig& config, const std::string& inputs) {
  return capture_command(config.config_path, inputs);
}

// The level's figures from the trace's first decode group (the most steps; else the first group of any
// phase).
void fill_from_trace(LiveStepLevel& level, const TraceResult& trace) {
  const std::vector<const TraceStepGroup*> groups = headline_groups(trace, 1);
  if (groups.empty()) {
    level.status = "failed";
    level.note = "the traces hold no step the capture could find: " + trace.step_method_detail;
    return;
  }
  const TraceStepGroup& g = *groups.front();
  level.status = "read";
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
  for (const TraceKindShare& k : g.kinds)
    level.kinds.push_back({k.kind, k.ops_per_step, k.merged_us.p50, k.share});
  for (const TraceClassShare& c : g.classes) level.classes.push_back({c.cls, c.merged_us.p50, c.share});
}

// Ranks the trace's files say the run had (the largest world size given), 0 when none says.
int world_size(const TraceResult& trace) {
  int size = 0;
  for (const TraceRankResult& rank : trace.ranks) size = std::max(size, rank.world_size);
  return size;
}

struct ReadAttempt {
  std::optional<TraceResult> trace;
  std::string problem;  // why the files are not (yet) readable
};

// Reads a folder of trace files through the capture's one door, under the rules `k25comm capture` would
// use for the run's model (none: sizes stay unknown).
class TraceReader {
 public:
  explicit TraceReader(const std::optional<RunConfig>& config) {
    if (config) {
      rules_.model = capture_model(config->model);
      rules_.model->graph_sizes = config->sweep.graph_sizes;
    }
  }

  ReadAttempt read(const std::string& folder) const {
    ReadAttempt attempt;
    try {
      CaptureResult capture = analyze_capture_files({folder}, rules_);
      if (!capture.trace.present)
        attempt.problem = "no profiler trace with GPU events among the files";
      else
        attempt.trace = std::move(capture.trace);
    } catch (const UsageError& e) {
      attempt.problem = e.what();
    }
    return attempt;
  }

 private:
  CaptureRules rules_;
};

class WindowReader {
 public:
  explicit WindowReader(const RunConfig& config) : config_(config), traces_(config) {}

  LiveStepLevel read(const ProfileWindow& window) {
    LiveStepLevel level;
    level.concurrency = window.concurrency;
    const std::string& dir = config_.serve.profile_dir;
    std::error_code ec;
    if (dir.empty() || !fs::is_directory(dir, ec) || !readable(dir)) {
      level.status = "unread";
      level.capture_command = capture_command(config_, dir.empty() ? "DIR" : dir);
      level.note = fmt::format(
          "the profile folder {} is not readable here (a remote server, or serve.profile_dir not set): read the traces where they are with: {}, and join them with: k25comm report {}/report.json --capture DIR",
          dir.empty() ? "(none given)" : dir, level.capture_command, config_.output.dir);
      return level;
    }
    wait_and_read(window, level);
    return level;
  }

 private:
  static bool readable(const std::string& dir) {
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    return !ec;
  }

  // Files that are whole and hold as many ranks as their world size: read into `level`, true. Otherwise
  // `problem` says why not, and `partial` keeps a read of fewer ranks.
  bool try_files(const ProfileWindow& window, const FileSizes& files, LiveStepLevel& level,
                 std::string& problem, std::optional<FileSizes>& partial) {
    if (const std::string incomplete = first_incomplete(files); !incomplete.empty()) {
      problem = incomplete;
      return false;
    }
    const std::string folder = link_folder(config_, window.concurrency, files);
    ReadAttempt attempt = traces_.read(folder);
    if (!attempt.trace) {
      problem = attempt.problem;
      return false;
    }
    const int world = world_size(*attempt.trace);
    if (static_cast<int>(attempt.trace->ranks.size()) >= world) {
      finish(level, files, folder, *attempt.trace);
      return true;
    }
    problem = fmt::format("{} of {} ranks' files", attempt.trace->ranks.size(), world);
    partial = files;
    return false;
  }

  // Polls the folder until the window's files stop growing and read whole, or the wait ends.
  void wait_and_read(const ProfileWindow& window, LiveStepLevel& level) {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::duration<double>(config_.serve.profile_wait_s);
    const auto quiet_needed = std::chrono::milliseconds(1000);
    FileSizes seen;
    std::optional<FileSizes> partial;
    auto quiet_since = Clock::now();
    std::string problem = "no new file appeared in the profile folder";
    for (; Clock::now() < deadline && interrupt_signal() == 0;
         std::this_thread::sleep_for(std::chrono::milliseconds(250))) {
      const FileSizes now = new_files(config_.serve.profile_dir, window.started_unix_s - 1.0, claimed_);
      if (now != seen) {
        seen = now;
        quiet_since = Clock::now();
      } else if (!now.empty() && Clock::now() - quiet_since >= quiet_needed) {
        if (try_files(window, now, level, problem, partial)) return;
        quiet_since = Clock::now();  // wait for more before trying again
      }
    }
    if (partial) {  // some ranks' files are whole: read what there is, and say what is missing
      const std::string folder = link_folder(config_, window.concurrency, *partial);
      const ReadAttempt attempt = traces_.read(folder);
      if (attempt.trace) return finish(level, *partial, folder, *attempt.trace);
    }
    level.status = "failed";
    for (const auto& [path, size] : seen) {
      level.files.push_back(path);
      claimed_.insert(path);  // a later window's files are never this one's, complete or not
    }
    level.capture_command = capture_command(config_, config_.serve.profile_dir);
    level.note = fmt::format("the trace files were not complete after {:g} s (serve.profile_wait_s): {}",
                             config_.serve.profile_wait_s, problem);
  }

  void finish(LiveStepLevel& level, const FileSizes& files, const std::string& folder,
              const TraceResult& trace) {
    for (const auto& [path, size] : files) {
      level.files.push_back(path);
      claimed_.insert(path);
    }
    level.capture_command = capture_command(config_, folder);
    fill_from_trace(level, trace);
    const int world = world_size(trace);
    if (level.status == "read" && world > static_cast<int>(trace.ranks.size()))
      level.note = fmt::format("read {} of {} ranks' files (the others did not appear in time)",
                               trace.ranks.size(), world);
  }

  const RunConfig& config_;
  TraceReader traces_;
  std::set<std::string> claimed_;
};

}  // namespace

LiveProfile read_live_profile(const RunConfig& config, const ServeProfile& profile,
                              const LiveStepSink& on_level) {
  LiveProfile live;
  if (!profile.asked) return live;
  live.present = true;
  WindowReader reader(config);
  for (const ProfileWindow& window : profile.windows) {
    if (window.status != "recorded") continue;
    LiveStepLevel level = reader.read(window);
    if (on_level) on_level(level);
    live.levels.push_back(std::move(level));
  }
  return live;
}

namespace {

// The level a --capture input is for: "C:DIR" names it; a plain DIR takes the next profiled level (by
// concurrency) that has no live step read yet.
LiveStepLevel& level_for(LiveProfile& live, const ServeProfile& profile, const std::string& input,
                         std::set<int>& taken, std::string& folder) {
  folder = input;
  std::optional<int> concurrency;
  if (const std::size_t colon = input.find(':'); colon != std::string::npos && colon > 0) {
    const std::string head = input.substr(0, colon);
    if (head.find_first_not_of("0123456789") == std::string::npos) {
      concurrency = std::stoi(head);
      folder = input.substr(colon + 1);
    }
  }
  std::vector<int> candidates;
  for (const ProfileWindow& window : profile.windows)
    if (window.status == "recorded") candidates.push_back(window.concurrency);
  for (const LiveStepLevel& level : live.levels)
    if (std::find(candidates.begin(), candidates.end(), level.concurrency) == candidates.end())
      candidates.push_back(level.concurrency);
  std::sort(candidates.begin(), candidates.end());
  if (!concurrency) {
    for (const int c : candidates) {
      const auto read = std::find_if(live.levels.begin(), live.levels.end(), [&](const LiveStepLevel& l) {
        return l.concurrency == c && l.status == "read";
      });
      if (taken.count(c) == 0 && read == live.levels.end()) {
        concurrency = c;
        break;
      }
    }
    if (!concurrency)
      throw UsageError(fmt::format(
          "--capture {}: every profiled level of the report has its live step already; give C:DIR to replace one",
          input));
  } else if (std::find(candidates.begin(), candidates.end(), *concurrency) == candidates.end()) {
    throw UsageError(fmt::format("--capture {}: the report has no profiled window at concurrency {}", input,
                                 *concurrency));
  }
  taken.insert(*concurrency);
  for (LiveStepLevel& level : live.levels)
    if (level.concurrency == *concurrency) {
      level = LiveStepLevel{};
      level.concurrency = *concurrency;
      return level;
    }
  LiveStepLevel& added = live.levels.emplace_back();
  added.concurrency = *concurrency;
  return added;
}

}  // namespace

void join_live_captures(RunReport& report, const std::vector<std::string>& inputs) {
  std::optional<RunConfig> config;
  if (report.run.config.is_object()) {
    try {
      config = parse_config(report.run.config.dump(), "report.json run.config");
    } catch (const Error&) {
      config.reset();  // sizes stay unknown: the trace's own sizes only
    }
  }
  const TraceReader traces(config);
  report.live_profile.present = true;
  std::set<int> taken;
  for (const std::string& input : inputs) {
    std::string folder;
    LiveStepLevel& level = level_for(report.live_profile, report.serve.profile, input, taken, folder);
    const ReadAttempt attempt = traces.read(folder);
    if (!attempt.trace) throw UsageError(fmt::format("--capture {}: {}", input, attempt.problem));
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec))
      if (entry.is_regular_file(ec)) level.files.push_back(fs::absolute(entry.path()).string());
    std::sort(level.files.begin(), level.files.end());
    level.capture_command = capture_command(report.run.config_path, folder);
    fill_from_trace(level, *attempt.trace);
    if (level.status == "read") level.note = "joined later by k25comm report --capture " + input;
  }
  std::sort(report.live_profile.levels.begin(), report.live_profile.levels.end(),
            [](const LiveStepLevel& a, const LiveStepLevel& b) { return a.concurrency < b.concurrency; });
}

}  // namespace k25
