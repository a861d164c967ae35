// Watches the profile folder: files seen, changed, read once quiet, and matched to the window that holds
// their events (window_matching.cpp).
#include "live_profile/trace_folder_watcher.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>
#include <system_error>
#include <thread>

#include "common/interrupt.hpp"

namespace k25 {

namespace fs = std::filesystem;

namespace {

double unix_seconds(fs::file_time_type time) {
  const auto system = std::chrono::file_clock::to_sys(time);
  return std::chrono::duration<double>(system.time_since_epoch()).count();
}

}  // namespace

TraceFolderWatcher::TraceFolderWatcher(std::string folder, WatchRules rules, TraceFileReader read)
    : folder_(std::move(folder)), rules_(rules), read_(std::move(read)) {}

void TraceFolderWatcher::begin_window(const WindowSpan& window, double now_s) {
  windows_.push_back(window);
  began_s_ = now_s;
}

void TraceFolderWatcher::scan(double now_s) {
  std::set<std::string> present;
  std::error_code ec;
  for (fs::directory_iterator it(folder_, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code fec;
    if (!it->is_regular_file(fec) || fec) continue;  // a link to a file counts as the file
    const std::uintmax_t size = it->file_size(fec);
    if (fec) continue;
    const fs::file_time_type written = it->last_write_time(fec);
    if (fec) continue;
    const std::string path = it->path().lexically_normal().string();
    present.insert(path);
    const auto [at, added] = files_.try_emplace(path);
    WatchedFile& file = at->second;
    const double written_unix_s = unix_seconds(written);
    if (added || file.size != size || file.written_unix_s != written_unix_s) {
      file.size = size;
      file.written_unix_s = written_unix_s;
      file.changed_s = now_s;
      file.facts.reset();
      file.done = false;  // a file written again is looked at again
    }
  }
  std::erase_if(files_, [&](const auto& entry) { return present.count(entry.first) == 0; });
  for (auto& [path, file] : files_) {
    if (file.facts || !candidate(file) || now_s - file.changed_s < rules_.quiet_s) continue;
    try {
      file.facts = read_(path);
    } catch (const std::exception& e) {  // the reader should not throw; should it, the file is refused
      file.facts = TraceFileFacts{TraceFileState::refused, e.what(), {}, 0, std::nullopt, std::nullopt};
    }
  }
}

bool TraceFolderWatcher::candidate(const WatchedFile& file) const {
  return !file.done && !windows_.empty() &&
         file.written_unix_s >= windows_.back().start_unix_s - rules_.clock_slack_s;
}

WindowFiles TraceFolderWatcher::current_files() const {
  WindowFiles found;
  std::set<int> ranks;
  const std::size_t current = windows_.size() - 1;
  for (const auto& [path, file] : files_) {
    if (!candidate(file)) continue;
    found.any_file = true;
    if (!file.facts) {
      found.pending.push_back({path, "still being written"});
      continue;
    }
    const TraceFileFacts& facts = *file.facts;
    switch (facts.state) {
      case TraceFileState::cut:
        found.pending.push_back({path, facts.reason});
        break;
      case TraceFileState::refused:
        found.refused.push_back({path, facts.reason});
        break;
      case TraceFileState::host_only:
        found.host_only.push_back(path);
        break;
      case TraceFileState::whole:
        if (const std::optional<std::size_t> window =
                owning_window(windows_, facts.first_unix_s, facts.last_unix_s, rules_.clock_slack_s);
            !window) {
          found.nobodys.push_back(path);
        } else if (*window != current) {
          found.late.push_back({path, *window});
        } else {
          found.files.push_back(path);
          ranks.insert(facts.ranks.begin(), facts.ranks.end());
          found.world_size = std::max(found.world_size, facts.world_size);
        }
        break;
    }
  }
  found.ranks.assign(ranks.begin(), ranks.end());
  return found;
}

std::optional<WaitEnd> TraceFolderWatcher::ended(double now_s) const {
  if (windows_.empty()) return std::nullopt;
  const WindowFiles found = current_files();
  if (!found.files.empty() && found.world_size > 0 &&
      static_cast<int>(found.ranks.size()) >= found.world_size)
    return WaitEnd::all_ranks;
  double last_change = -1;
  for (const auto& [path, file] : files_)
    if (candidate(file)) last_change = std::max(last_change, file.changed_s);
  // Only a file of this window with GPU events settles the wait: vLLM's frontend writes its host-only trace
  // first, and what the capture refuses is no rank's.
  if (!found.files.empty() && found.pending.empty() && now_s - last_change >= rules_.settle_s)
    return WaitEnd::settled;
  if (now_s - began_s_ >= rules_.wait_s) return WaitEnd::deadline;
  return std::nullopt;
}

WindowFiles TraceFolderWatcher::finish_window() {
  if (windows_.empty()) return {};
  WindowFiles found = current_files();
  for (auto& [path, file] : files_)
    if (candidate(file) && file.facts && file.facts->state != TraceFileState::cut) file.done = true;
  return found;
}

WindowFiles wait_for_window_files(TraceFolderWatcher& watcher, const WindowSpan& window,
                                  std::optional<WaitEnd>& ended) {
  using Clock = std::chrono::steady_clock;
  const auto seconds = [] { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); };
  watcher.begin_window(window, seconds());
  ended.reset();
  while (interrupt_signal() == 0) {
    const double now = seconds();
    watcher.scan(now);
    if ((ended = watcher.ended(now))) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return watcher.finish_window();
}

}  // namespace k25
