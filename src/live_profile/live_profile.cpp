// Each profiler window's files waited for, linked per level and read into its live step, as the window ends.
#include "live_profile/live_profile.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>

#include <unistd.h>

#include <fmt/format.h>

#include "common/enum_names.hpp"
#include "common/error.hpp"

namespace k25 {

namespace fs = std::filesystem;

namespace {

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
  const std::string elsewhere = capture_command_line(config_.config_path, "DIR");
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
    level.capture_command = capture_command_line(config_.config_path, dir);
    note = fmt::format("the profile folder {} cannot be read here ({}): read the traces with: {}, and {}",
                       dir, ec.message(), level.capture_command, join);
  } else {
    return false;
  }
  level.status = LiveStepStatus::unread;
  level.note = note;
  return true;
}

void LiveProfileReader::read_window(LiveStepLevel& level, const WindowWait& wait) const {
  const WindowFiles& found = wait.found;
  const ServeSpec& serve = config_.serve;
  level.files = found.files;
  for (const auto& [late, during] : wait.late) level.files.push_back(late);
  std::sort(level.files.begin(), level.files.end());
  if (level.files.empty()) {
    level.status = LiveStepStatus::failed;
    level.note = nothing_to_read(found, wait.ended, serve);
    std::vector<std::string> pending;
    for (const FileNote& file : found.pending) pending.push_back(file.path);
    if (!pending.empty())
      level.capture_command = capture_command_line(config_.config_path, join_names(pending, " "));
    return;
  }
  std::vector<std::string> notes;
  std::string link_problem;
  const std::string folder = link_folder(config_.output.dir, level.concurrency, level.files, link_problem);
  const std::vector<std::string> inputs = folder.empty() ? level.files : std::vector<std::string>{folder};
  level.capture_command = capture_command_line(config_.config_path, join_names(inputs, " "));
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
                                              wait_end_text(wait.ended, serve)));
  }
  for (const auto& [late, during] : wait.late)
    notes.push_back(
        fmt::format("{} came after this window's wait ended and was read during C={}'s", late, during));
  for (const FileNote& pending : found.pending)
    notes.push_back(fmt::format("left out, not complete when the wait ended: {}", pending.why));
  level.note = join_names(notes, "; ");
}

void LiveProfileReader::read_late_files(const std::vector<LateFile>& files, int concurrency) {
  std::set<std::size_t> owners;
  for (const LateFile& late : files) {
    if (late.window >= waits_.size()) continue;
    waits_[late.window].late.emplace_back(late.path, concurrency);
    owners.insert(late.window);
  }
  for (const std::size_t owner : owners) {
    const WindowWait& wait = waits_[owner];
    LiveStepLevel& level = levels_[wait.level];
    LiveStepLevel again;
    again.concurrency = level.concurrency;
    read_window(again, wait);
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
    // Where no file could be read, waiting for the window's files would only cost the wait.
    if (!traces_.rules_problem().empty()) {
      level.status = LiveStepStatus::failed;
      level.note =
          "k25comm capture refuses every trace under this run's rules, the window's files were not "
          "waited for: " +
          traces_.rules_problem();
    } else if (!unread(level)) {
      if (!watcher_)
        watcher_.emplace(config_.serve.profile_dir, watch_rules(config_.serve),
                         [this](const std::string& path) { return traces_.facts(path); });
      WindowWait wait;
      wait.level = levels_.size();
      wait.found = wait_for_window_files(
          *watcher_, {window.concurrency, window.started_unix_s, window.stopped_unix_s}, wait.ended);
      read_window(level, wait);
      late = wait.found.late;
      waits_.push_back(std::move(wait));
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

}  // namespace k25
