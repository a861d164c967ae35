// The live profile's eyes on the profile folder: which trace files appeared, when, whether they are whole,
// and whose profiler window they are (window_matching.hpp; docs/live-profile.md, "Whose files are whose").
// Time is given to it, never read by it, so that every rule is tested on real files without waiting.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "live_profile/window_matching.hpp"

namespace k25 {

// What one trace file says of itself, read alone through the capture's one door (live_trace_read.hpp).
enum class TraceFileState {
  whole,      // a profiler trace read to its end
  cut,        // a trace that ends early: still being written
  host_only,  // a trace without GPU events (vLLM's frontend writes one beside its workers'): no rank's
  refused,    // what `k25comm capture` refuses (not a trace, corrupt, no kernel-class table, ...)
};

struct TraceFileFacts {
  TraceFileState state = TraceFileState::refused;
  std::string reason;      // cut, refused: why (the capture's own words)
  std::vector<int> ranks;  // the ranks it holds
  int world_size = 0;      // as its distributedInfo says; 0: not said
  // Its GPU events' first start and last end, seconds since the epoch; nullopt where its clock is not wall
  // time (an Nsight Systems export, a trace whose times are its own).
  std::optional<double> first_unix_s, last_unix_s;
};

using TraceFileReader = std::function<TraceFileFacts(const std::string& path)>;

struct WatchRules {
  double wait_s =
      120;  // serve.profile_wait_s: after the stop, the wait ends at the latest this long after it
  double settle_s = 5;  // serve.profile_settle_s: fewer ranks than the world size: it ends this long after
                        // the last file stopped changing
  double quiet_s = 1;   // a file unchanged this long is read (before, it may be half written)
  // The server's clock and this host's may differ (one host: the same clock; NTP keeps hosts within
  // milliseconds): a window is held this much wider when a file's events are matched to it
  // (owning_window), and a file last written this long before a window started is never its.
  double clock_slack_s = 1;
};

// Why the wait for a window's files ended.
enum class WaitEnd {
  all_ranks,  // files of every rank of the world size are whole
  settled,    // a file of the window with GPU events came, then nothing changed for settle_s and nothing is
              // half written (host-only and refused files alone never settle it)
  deadline,   // wait_s passed
};

// A file that is not the window's, or not readable, with why.
struct FileNote {
  std::string path;
  std::string why;
};

// A file whose events lie in an earlier window: it came after that window's wait ended.
struct LateFile {
  std::string path;
  std::size_t window = 0;  // index of the window it belongs to
};

// What the wait found for one window.
struct WindowFiles {
  std::vector<std::string> files;  // the window's own whole files, sorted
  std::vector<int> ranks;          // the ranks they hold, sorted, once each
  int world_size = 0;              // the largest their files give; 0: none says
  std::vector<FileNote> pending;   // half written when the wait ended
  std::vector<FileNote> refused;   // what the capture refuses, with its words
  std::vector<std::string> host_only;
  std::vector<std::string> nobodys;  // whole traces whose events lie in no profiler window
  std::vector<LateFile> late;
  bool any_file = false;  // any new file appeared at all
};

class TraceFolderWatcher {
 public:
  TraceFolderWatcher(std::string folder, WatchRules rules, TraceFileReader read);

  // The next window, after its stop, at watcher time `now_s` (seconds on any steady clock): its files are
  // waited for from now on. Windows come in the order they ran.
  void begin_window(const WindowSpan& window, double now_s);

  // Looks at the folder at `now_s`: new files and changed ones (size or write time), and reads each file that
  // has not changed for quiet_s since it last did. Never throws: a folder that cannot be listed is seen
  // empty.
  void scan(double now_s);

  // Why the current window's wait is over at `now_s`, or nullopt while it goes on.
  std::optional<WaitEnd> ended(double now_s) const;

  // The current window's files as they stand, and marks every file it judged (its own, late, nobody's,
  // refused) as seen, so that no later window takes them; half written files stay open to later windows.
  WindowFiles finish_window();

  const std::vector<WindowSpan>& windows() const { return windows_; }

 private:
  // One file of the folder as the watcher last saw it, and what it says of itself once read.
  struct WatchedFile {
    std::uintmax_t size = 0;
    double written_unix_s = 0;  // its last write time
    double changed_s = 0;       // watcher time of the last change seen
    std::optional<TraceFileFacts> facts;
    bool done = false;  // judged in an earlier window
  };

  bool candidate(const WatchedFile& file) const;
  WindowFiles current_files() const;

  std::string folder_;
  WatchRules rules_;
  TraceFileReader read_;
  std::vector<WindowSpan> windows_;
  double began_s_ = 0;
  std::map<std::string, WatchedFile> files_;
};

// Waits for `window`'s files: scans every 0.25 s (steady clock) until `watcher.ended` says so or a signal
// came (interrupt_signal), then finishes the window. `ended` tells why it ended (nullopt: a signal).
WindowFiles wait_for_window_files(TraceFolderWatcher& watcher, const WindowSpan& window,
                                  std::optional<WaitEnd>& ended);

}  // namespace k25
