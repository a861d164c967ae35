// The live profile of a serve run: as each profiler window ends, before the next level starts, its trace
// files are waited for (trace_folder_watcher.hpp) and read through the capture's one door
// (live_trace_read.hpp) into that level's live step. Traces read later join a report through
// live_capture_join.hpp.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/live_step.hpp"
#include "config/run_config.hpp"
#include "live_profile/live_trace_read.hpp"
#include "live_profile/trace_folder_watcher.hpp"
#include "serve/profile_window.hpp"

namespace k25 {

// Called as a level's live step is known (read, unread or failed), and again when a file that came late is
// read into it: the journal and the console.
using LiveStepSink = std::function<void(const LiveStepLevel& level)>;

class LiveProfileReader {
 public:
  LiveProfileReader(const RunConfig& config, LiveStepSink on_level);

  // After `window` ended (the serve phase's ProfileWindowSink), for a recorded one: waits for its files in
  // serve.profile_dir (those written since its start whose events lie in its start..stop; whole; until every
  // rank of their world size is there, or serve.profile_settle_s after the last change where fewer came, at
  // most serve.profile_wait_s), links them under OUT/live-profile/cC and reads them as `k25comm capture
  // OUT/live-profile/cC --model CONFIG` does. A file of an earlier window that came late is read into that
  // window's level then. A folder not seen from here gives status unread; anything the files do (never come,
  // never complete, refused, removed, links that fail) is a note on the level; where the capture would refuse
  // every trace (no kernel-class table found), the level fails at once, without the wait. Never throws.
  void window_ended(const ProfileWindow& window);

  // The levels so far, in the order their windows ran.
  LiveProfile result() const;

 private:
  // The wait for one window's files: its level, what the watcher found, why the wait ended, and the files
  // that came after it.
  struct WindowWait {
    std::size_t level = 0;  // index into levels_
    WindowFiles found;
    std::optional<WaitEnd> ended;
    // Files that came after its wait ended, each with the level in whose wait it came.
    std::vector<std::pair<std::string, int>> late;
  };

  bool unread(LiveStepLevel& level) const;
  void read_window(LiveStepLevel& level, const WindowWait& wait) const;
  void read_late_files(const std::vector<LateFile>& files, int concurrency);

  const RunConfig& config_;
  LiveStepSink on_level_;
  LiveTraceReader traces_;
  std::optional<TraceFolderWatcher> watcher_;
  std::vector<LiveStepLevel> levels_;
  std::vector<WindowWait> waits_;  // one per window of the watcher, in its order
};

// What to say at the start of a profiled serve phase about serve.profile_dir as this host sees it, one line
// each: not given, not here, not writable by this user; none where it is a folder this user can write. Throws
// UsageError where it names something that is not a folder.
std::vector<std::string> profile_folder_lines(const ServeSpec& serve);

}  // namespace k25
