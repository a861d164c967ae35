// report.md's live-profile section and the console lines of the profile windows.
#include "report/live_step_markdown.hpp"

#include <set>

#include <fmt/format.h>

#include "common/column_table.hpp"

namespace k25 {
namespace {

using Level = const LiveStepLevel&;

std::string ms(double us) {
  return readable_number(us / 1000.0);
}

std::string optional_ms(const std::optional<double>& value) {
  return value ? readable_number(*value) : "-";
}

std::string kinds_text(Level level) {
  std::string text;
  for (const LiveStepKind& kind : level.kinds)
    text += fmt::format("{}{} {:g} x, {} ms", text.empty() ? "" : "; ", kind.kind, kind.ops_per_step,
                        ms(kind.merged_us));
  return text;
}

Columns<LiveStepLevel> step_columns() {
  return {
      {"C", "", [](Level l) { return TableCell::count(l.concurrency); }},
      {"step", "",
       [](Level l) { return TableCell(l.status == LiveStepStatus::read ? l.step : to_string(l.status)); },
       kEveryOutput, 0, Align::left},
      {"steps read", "", [](Level l) { return TableCell::count(static_cast<double>(l.steps)); }},
      {"step wall p50", "ms", [](Level l) { return TableCell(ms(l.wall_us)); }},
      {"GPU busy p50", "ms", [](Level l) { return TableCell(ms(l.gpu_busy_us)); }},
      {"comm merged p50", "ms",
       [](Level l) {
         return TableCell(fmt::format("{} ({:.1f} %)", ms(l.comm_merged_us), 100 * l.comm_share));
       }},
      {"comm exposed p50", "ms",
       [](Level l) {
         return TableCell(fmt::format("{} ({:.1f} %)", ms(l.comm_exposed_us), 100 * l.exposed_share));
       }},
      {"comm by kind (merged)", "", [](Level l) { return TableCell(kinds_text(l)); }, kEveryOutput, 0,
       Align::left},
      {"TPOT p50 level", "ms", [](Level l) { return TableCell(optional_ms(l.level_tpot_ms)); }},
      {"TPOT p50 profiled", "ms", [](Level l) { return TableCell(optional_ms(l.window_tpot_ms)); }},
      {"replay burst T=C", "ms", [](Level l) { return TableCell(optional_ms(l.replay_burst_ms)); }},
  };
}

// One column per kernel class any level has, in the order they first appear.
Columns<LiveStepLevel> class_columns(const std::vector<LiveStepLevel>& levels) {
  Columns<LiveStepLevel> columns{{"C", "", [](Level l) { return TableCell::count(l.concurrency); }}};
  std::set<std::string> seen;
  for (const LiveStepLevel& level : levels)
    for (const LiveStepClass& cls : level.classes) {
      if (!seen.insert(cls.cls).second) continue;
      const std::string name = cls.cls;
      columns.push_back({name, "ms", [name](Level l) {
                           for (const LiveStepClass& c : l.classes)
                             if (c.cls == name)
                               return TableCell(fmt::format("{} ({:.1f} %)", ms(c.merged_us), 100 * c.share));
                           return TableCell("-");
                         }});
    }
  return columns;
}

// One row of the backends table: a level's backend of one collective kind and size.
struct LevelBackend {
  int concurrency = 0;
  const LiveStepBackend* backend = nullptr;
};
using LevelBackendRef = const LevelBackend&;

Columns<LevelBackend> backend_columns() {
  return {
      {"C", "", [](LevelBackendRef r) { return TableCell::count(r.concurrency); }},
      {"kind", "", [](LevelBackendRef r) { return TableCell(r.backend->kind); }, kEveryOutput, 0,
       Align::left},
      {"bytes", "",
       [](LevelBackendRef r) {
         return TableCell(r.backend->bytes ? std::to_string(*r.backend->bytes) : "unknown");
       }},
      {"backend", "", [](LevelBackendRef r) { return TableCell(r.backend->backend); }, kEveryOutput, 0,
       Align::left},
      {"count", "",
       [](LevelBackendRef r) { return TableCell::count(static_cast<double>(r.backend->count)); }},
      {"op p50", "us", [](LevelBackendRef r) { return TableCell(readable_number(r.backend->op_us_p50)); }},
  };
}

// The backend that ran each collective kind and size, per level, and the engines' rules that would have
// chosen another; empty where no level has a collective.
std::string render_backends(const std::vector<LiveStepLevel>& levels) {
  std::vector<LevelBackend> rows;
  for (const LiveStepLevel& level : levels)
    for (const LiveStepBackend& backend : level.backends) rows.push_back({level.concurrency, &backend});
  if (rows.empty()) return "";
  std::vector<const LevelBackend*> row_pointers;
  for (const LevelBackend& row : rows) row_pointers.push_back(&row);
  std::string md =
      "Backend that ran each collective kind and size (all ranks, the whole window; op time p50 per kernel), as `k25comm capture` says it:\n\n";
  md += markdown_table(backend_columns(), row_pointers) + "\n";
  std::string rules;
  for (const LiveStepLevel& level : levels)
    for (const LiveStepBackendRule& rule : level.backend_rules)
      rules += fmt::format("- C={}: {} on {} ranks: {} (source: {}).\n", level.concurrency, rule.backend,
                           rule.ranks, rule.rule, rule.source);
  if (!rules.empty())
    md += "Where an engine's documented rule would have chosen another backend:\n\n" + rules + "\n";
  return md;
}

}  // namespace

std::string render_live_profile(const RunReport& report) {
  const ServeProfile& profile = report.serve.profile;
  if (!profile.asked) return "";
  std::string md = "## Live profile (the engine's own profiler)\n\n";
  md += fmt::format("Engine: {}{} ({}); profile folder: {}. ", profile.engine,
                    profile.engine_version.empty() ? "" : " " + profile.engine_version, profile.engine_source,
                    profile.profile_dir.empty() ? "(none given)" : "`" + profile.profile_dir + "`");
  md +=
      "Each profiled level ran one more wave of requests with the profiler on; those requests are not the level's figures (TPOT p50 profiled beside the level's shows the profiler's slowdown).\n\n";
  if (!profile.engine_conflict.empty()) md += "Mind that " + profile.engine_conflict + ".\n\n";
  if (!profile.refusal.empty()) md += profile.refusal + "\n\n";
  std::vector<const LiveStepLevel*> rows;
  for (const LiveStepLevel& level : report.live_profile.levels) rows.push_back(&level);
  if (rows.empty()) return md + "No profile window was read.\n\n";
  md +=
      "Per step of the level's step group (its decode steps of the most common batch, where it has decode steps; p50 over them; shares of the group's wall time), as `k25comm capture` reads the same files:\n\n";
  md += markdown_table(step_columns(), rows) + "\n";
  md += "Time by kernel class (merged, p50 per step; share of the wall time):\n\n";
  md += markdown_table(class_columns(report.live_profile.levels), rows) + "\n";
  md += render_backends(report.live_profile.levels);
  for (const LiveStepLevel& level : report.live_profile.levels) {
    if (!level.note.empty()) md += fmt::format("- C={}: {}\n", level.concurrency, level.note);
    if (!level.capture_command.empty())
      md += fmt::format("- C={}: `{}`\n", level.concurrency, level.capture_command);
  }
  return md + "\n";
}

std::string profile_window_line(const ProfileWindow& window) {
  if (window.status == ProfileWindowStatus::refused) return window.message;
  std::string line = fmt::format("profile C={}: {} requests while profiling ({} completed), TPOT p50 {} ms",
                                 window.concurrency, window.requests, window.completed,
                                 window.tpot_ms ? readable_number(window.tpot_ms->p50) : "-");
  if (!window.message.empty()) line += "; " + window.message;
  return line;
}

std::string live_step_line(const LiveStepLevel& level) {
  if (level.status != LiveStepStatus::read)
    return fmt::format("live step C={}: {}: {}", level.concurrency, to_string(level.status), level.note);
  return fmt::format(
      "live step C={}: {}, {} steps read: wall p50 {} ms, GPU busy {} ms, communication {:.1f} % (exposed {:.1f} %){}",
      level.concurrency, level.step, level.steps, ms(level.wall_us), ms(level.gpu_busy_us),
      100 * level.comm_share, 100 * level.exposed_share, level.note.empty() ? "" : "; " + level.note);
}

}  // namespace k25
