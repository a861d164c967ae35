// Each profiler window's files waited for, linked per level and read into its live step, as the window ends.
#include "app/live_profile.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <set>
#include <system_error>

#include <unistd.h>

#include <fmt/format.h>

#include "common/enum_names.hpp"
#include "common/error.hpp"
#include "config/config_loader.hpp"

namespace k25 {

namespace fs = std::filesystem;

namespace {

std::string capture_command(const std::string& config_path, const std::string& inputs) {
  return fmt::format("k25comm capture {}{}", inputs, config_path.empty() ? "" : " --model " + config_path);
}

// OUT/live-profile/cC made afresh with one link per file; the folder, or empty with `problem` saying why.
std::string link_folder(const std::string& out_dir, int concurrency, const std::vector<std::string>& files,
                        std::string& problem) {
  const fs::path folder = fs::path(out_dir) / "live-profile" / fmt::format("c{}", concurrency);
  std::error_code ec;
  fs::remove_all(folder, ec);
  if (!ec) fs::create_directories(folder, ec);
  for (const std::string& file : files) {
    if (ec) break;
    const fs::path target = fs::absolute(file, ec);
    if (!ec) fs::create_symlink(target, folder / fs::path(file).filename(), ec);
  }
  if (!ec) return folder.string();
  problem = fmt::format("the files could not be linked under {} ({})", folder.string(), ec.message());
  return "";
}

// The watch rules of the run's config.
WatchRules watch_rules(const ServeSpec& serve) {
  WatchRules rules;
  rules.wait_s = serve.profile_wait_s;
  rules.settle_s = serve.profile_settle_s;
  return rules;
}

// "no more came within 5 s (serve.profile_settle_s) of the last", or why else the wait ended.
std::string wait_end_text(const std::optional<WaitEnd>& ended, const ServeSpec& serve) {
  if (!ended) return "a signal ended the wait";
  switch (*ended) {
    case WaitEnd::all_ranks:
      return "every rank's file came";
    case WaitEnd::settled:
      return fmt::format("no more came within {:g} s (serve.profile_settle_s) of the last",
                         serve.profile_settle_s);
    case WaitEnd::deadline:
      break;
  }
  return fmt::format("the wait of {:g} s (serve.profile_wait_s) ended", serve.profile_wait_s);
}

// Why a window has no file of its own to read.
std::string nothing_to_read(const WindowFiles& found, const std::optional<WaitEnd>& ended,
                            const ServeSpec& serve) {
  if (!found.pending.empty())
    return fmt::format("the trace files were not complete after {:g} s (serve.profile_wait_s): {}",
                       serve.profile_wait_s, found.pending.front().why);
  if (!found.refused.empty())
    return "k25comm capture refuses the window's files: " + found.refused.front().why;
  if (!found.nobodys.empty())
    return fmt::format(
        "no file holds this window's events: {} holds events outside every profiler window's start..stop (a server clock that differs from this host's?)",
        found.nobodys.front());
  if (!found.host_only.empty()) return "only traces without GPU events came: " + found.host_only.front();
  if (!found.late.empty()) return "no file of this window came, only an earlier window's";
  if (!ended) return "a signal ended the wait before any trace file appeared";
  return fmt::format("no trace file appeared in the profile folder within {:g} s (serve.profile_wait_s)",
                     serve.profile_wait_s);
}

}  // namespace

LiveProfileReader::LiveProfileReader(const RunConfig& config, LiveStepSink on_level)
    : config_(config), on_level_(std::move(on_level)), traces_(config) {}

LiveProfile LiveProfileReader::result() const {
  LiveProfile live;
  live.present = true;
  live.levels = levels_;
  return live;
}

// Whether the profile folder is not seen from here: then `level` says so (status unread) and how to read the
// traces where they are.
bool LiveProfileReader::unread(LiveStepLevel& level) const {
  const std::string& dir = config_.serve.profile_dir;
  const std::string join = fmt::format("join them with: k25comm report {}/report.json --capture {}:DIR",
                                       config_.output.dir, level.concurrency);
  const std::string elsewhere = capture_command(config_.config_path, "DIR");
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  std::string note;
  if (dir.empty()) {
    level.capture_command = elsewhere;
    note = fmt::format(
        "no profile folder was given (serve.profile_dir / --profile-dir): the server wrote its traces where it is set to; read them there with: {} (DIR: that folder), and {}",
        elsewhere, join);
  } else if (!fs::exists(status)) {
    level.capture_command = elsewhere;
    note = fmt::format(
        "the profile folder {} does not exist on this host (a server on another host writes it there): read the traces where they are with: {} (DIR: the folder as that host sees it), and {}",
        dir, elsewhere, join);
  } else if (!fs::is_directory(status)) {
    level.capture_command = elsewhere;
    note = fmt::format(
        "the profile folder {} is not a folder: read the traces where the server wrote them with: {}, and {}",
        dir, elsewhere, join);
  } else if (fs::directory_iterator(dir, ec); ec) {
    level.capture_command = capture_command(config_.config_path, dir);
    note = fmt::format("the profile folder {} cannot be read here ({}): read the traces with: {}, and {}",
                       dir, ec.message(), level.capture_command, join);
  } else {
    return false;
  }
  level.status = LiveStepStatus::unread;
  level.note = note;
  return true;
}

void LiveProfileReader::read_window(LiveStepLevel& level, const Watched& watched) const {
  const WindowFiles& found = watched.found;
  const ServeSpec& serve = config_.serve;
  level.files = found.files;
  for (const auto& [late, during] : watched.late) level.files.push_back(late);
  std::sort(level.files.begin(), level.files.end());
  if (level.files.empty()) {
    level.status = LiveStepStatus::failed;
    level.note = nothing_to_read(found, watched.ended, serve);
    std::vector<std::string> pending;
    for (const FileNote& file : found.pending) pending.push_back(file.path);
    if (!pending.empty())
      level.capture_command = capture_command(config_.config_path, join_names(pending, " "));
    return;
  }
  std::vector<std::string> notes;
  std::string link_problem;
  const std::string folder = link_folder(config_.output.dir, level.concurrency, level.files, link_problem);
  const std::vector<std::string> inputs = folder.empty() ? level.files : std::vector<std::string>{folder};
  level.capture_command = capture_command(config_.config_path, join_names(inputs, " "));
  if (!link_problem.empty()) notes.push_back(link_problem + ": the capture command names them one by one");
  const TraceRead read = traces_.read(inputs);
  if (!read.trace) {
    level.status = LiveStepStatus::failed;
    notes.insert(notes.begin(), "k25comm capture refuses the window's files: " + read.problem);
  } else {
    fill_live_step(level, *read.trace);
    if (level.status == LiveStepStatus::failed) notes.insert(notes.begin(), level.note);
    const int world = trace_world_size(*read.trace);
    const int ranks = static_cast<int>(read.trace->ranks.size());
    if (world > ranks)
      notes.insert(notes.begin(), fmt::format("read {} of {} ranks' files ({})", ranks, world,
                                              wait_end_text(watched.ended, serve)));
  }
  for (const auto& [late, during] : watched.late)
    notes.push_back(
        fmt::format("{} came after this window's wait ended and was read during C={}'s", late, during));
  for (const FileNote& pending : found.pending)
    notes.push_back(fmt::format("left out, not complete when the wait ended: {}", pending.why));
  level.note = join_names(notes, "; ");
}

void LiveProfileReader::read_late_files(const std::vector<LateFile>& files, int concurrency) {
  std::set<std::size_t> owners;
  for (const LateFile& late : files) {
    if (late.window >= watched_.size()) continue;
    watched_[late.window].late.emplace_back(late.path, concurrency);
    owners.insert(late.window);
  }
  for (const std::size_t owner : owners) {
    Watched& watched = watched_[owner];
    LiveStepLevel& level = levels_[watched.level];
    LiveStepLevel again;
    again.concurrency = level.concurrency;
    read_window(again, watched);
    level = std::move(again);
    if (on_level_) on_level_(level);
  }
}

void LiveProfileReader::window_ended(const ProfileWindow& window) {
  if (window.status != ProfileWindowStatus::recorded) return;
  LiveStepLevel level;
  level.concurrency = window.concurrency;
  std::vector<LateFile> late;
  try {
    if (!unread(level)) {
      if (!watcher_)
        watcher_.emplace(config_.serve.profile_dir, watch_rules(config_.serve),
                         [this](const std::string& path) { return traces_.facts(path); });
      Watched watched;
      watched.level = levels_.size();
      watched.found = wait_for_window_files(
          *watcher_, {window.concurrency, window.started_unix_s, window.stopped_unix_s}, watched.ended);
      read_window(level, watched);
      late = watched.found.late;
      watched_.push_back(std::move(watched));
    }
  } catch (const std::exception& e) {  // a fault the calls above do not foresee: the run is kept all the same
    level.status = LiveStepStatus::failed;
    level.note = std::string("the window's files could not be read: ") + e.what();
  }
  levels_.push_back(level);
  if (on_level_) on_level_(levels_.back());
  try {
    read_late_files(late, window.concurrency);
  } catch (const std::exception&) {
    // the earlier level keeps what it had
  }
}

std::vector<std::string> profile_folder_lines(const ServeSpec& serve) {
  const std::string& dir = serve.profile_dir;
  if (dir.empty())
    return {
        "profile: no profile folder given (--profile-dir, serve.profile_dir): the server writes its traces where it is set to, and their live steps are not read here"};
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (!fs::exists(status))
    return {fmt::format(
        "profile: the profile folder {} does not exist here: give it as this host sees it (the same host, or a shared file system), unless the server makes it; a server on another host writes it there, and its traces are read there (k25comm capture) and joined later (k25comm report --capture)",
        dir)};
  if (!fs::is_directory(status))
    throw UsageError(fmt::format(
        "--profile-dir {}: not a folder (the server writes one trace file per rank into a folder)", dir));
  if (::access(dir.c_str(), W_OK) != 0)
    return {fmt::format(
        "profile: the profile folder {} cannot be written by this user: the server must be able to write it (vLLM's torch_profiler_dir, SGLang's output_dir)",
        dir)};
  return {};
}

namespace {

// The concurrency of "C:DIR" (DIR set to the rest), or nullopt for a plain DIR. Throws UsageError for a C
// that is not a concurrency 1..4096.
std::optional<int> capture_input_level(const std::string& input, std::string& folder) {
  folder = input;
  const std::size_t colon = input.find(':');
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  const std::string head = input.substr(0, colon);
  if (head.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  int concurrency = 0;
  const auto [end, error] = std::from_chars(head.data(), head.data() + head.size(), concurrency);
  if (error != std::errc() || end != head.data() + head.size() || concurrency < 1 || concurrency > 4096)
    throw UsageError(
        fmt::format("--capture {}: {} is not a concurrency 1..4096 (give C:DIR or DIR)", input, head));
  folder = input.substr(colon + 1);
  return concurrency;
}

// The level a --capture input is for: "C:DIR" names it; a plain DIR takes the next profiled level (by
// concurrency) that has no live step read yet.
LiveStepLevel& level_for(LiveProfile& live, const ServeProfile& profile, const std::string& input,
                         std::set<int>& taken, std::string& folder) {
  std::optional<int> concurrency = capture_input_level(input, folder);
  std::vector<int> candidates;
  for (const ProfileWindow& window : profile.windows)
    if (window.status == ProfileWindowStatus::recorded) candidates.push_back(window.concurrency);
  for (const LiveStepLevel& level : live.levels)
    if (std::find(candidates.begin(), candidates.end(), level.concurrency) == candidates.end())
      candidates.push_back(level.concurrency);
  std::sort(candidates.begin(), candidates.end());
  if (!concurrency) {
    for (const int c : candidates) {
      const auto read = std::find_if(live.levels.begin(), live.levels.end(), [&](const LiveStepLevel& l) {
        return l.concurrency == c && l.status == LiveStepStatus::read;
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
  const LiveTraceReader traces(config);
  report.live_profile.present = true;
  std::set<int> taken;
  for (const std::string& input : inputs) {
    std::string folder;
    LiveStepLevel& level = level_for(report.live_profile, report.serve.profile, input, taken, folder);
    const TraceRead read = traces.read({folder});
    if (!read.trace) throw UsageError(fmt::format("--capture {}: {}", input, read.problem));
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code fec;
      if (it->is_regular_file(fec)) level.files.push_back(fs::absolute(it->path(), fec).string());
    }
    std::sort(level.files.begin(), level.files.end());
    level.capture_command = capture_command(report.run.config_path, folder);
    fill_live_step(level, *read.trace);
    if (level.status == LiveStepStatus::read)
      level.note = "joined later by k25comm report --capture " + input;
  }
  std::sort(report.live_profile.levels.begin(), report.live_profile.levels.end(),
            [](const LiveStepLevel& a, const LiveStepLevel& b) { return a.concurrency < b.concurrency; });
}

}  // namespace k25
