// `k25comm report RUN/report.json --capture DIR...`: traces read after the run joined to its profiled levels.
#include "live_profile/live_capture_join.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <optional>
#include <set>
#include <system_error>

#include <fmt/format.h>

#include "common/error.hpp"
#include "config/config_loader.hpp"
#include "live_profile/live_trace_read.hpp"

namespace k25 {

namespace fs = std::filesystem;

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
    level.capture_command = capture_command_line(report.run.config_path, folder);
    fill_live_step(level, *read.trace);
    if (level.status == LiveStepStatus::read)
      level.note = "joined later by k25comm report --capture " + input;
  }
  std::sort(report.live_profile.levels.begin(), report.live_profile.levels.end(),
            [](const LiveStepLevel& a, const LiveStepLevel& b) { return a.concurrency < b.concurrency; });
}

}  // namespace k25
