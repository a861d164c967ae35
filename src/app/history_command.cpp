// The history command: add, rebuild, page, metrics (history_command.hpp).
#include "app/history_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>

#include <fmt/format.h>

#include "analysis/report_reader.hpp"
#include "app/run_facts.hpp"
#include "build_info.hpp"
#include "common/error.hpp"
#include "common/whole_file.hpp"
#include "history/history_metrics.hpp"
#include "history/history_page.hpp"
#include "history/history_store.hpp"
#include "history/history_summary.hpp"
#include "report/atomic_file.hpp"

namespace k25 {

namespace fs = std::filesystem;

namespace {

// Every report read before the store is opened: one that cannot be read stops the command with the store
// untouched.
std::vector<HistoryNight> read_nights(const std::vector<std::string>& reports, const std::string& db) {
  std::vector<HistoryNight> nights;
  for (const std::string& path : reports) {
    nights.push_back(rows_from_report(read_report_file(path), path));  // refusals name the file as given
    nights.back().run.report_path = store_report_path(db, path);
  }
  return nights;
}

HistoryDocument judged(const std::vector<HistoryNight>& nights, const HistoryOptions& options,
                       const std::function<std::string(const RunRow&)>& report_link) {
  HistoryDocument doc = judge_history(nights, options, report_link);
  doc.tool_version = kVersion;
  doc.git_sha = git_sha();
  doc.generated_at = utc_now_iso8601();
  return doc;
}

void print_outcome(const AddOutcome& outcome, const std::string& db, std::ostream& out) {
  out << fmt::format("history: added {} night(s) to {}", outcome.added.size(), db);
  if (!outcome.already_there.empty()) out << fmt::format("; {} already there", outcome.already_there.size());
  out << "\n";
  for (const AddOutcome::Skipped& skipped : outcome.already_there)
    out << fmt::format("history:   {}: the same run (node and start) as {}, added before: nothing added\n",
                       skipped.report_path, skipped.first_added_from);
}

int add(const HistoryCommandOptions& options, std::ostream& out) {
  if (options.reports.empty()) throw UsageError("history add: give at least one REPORT (report.json)");
  const std::vector<HistoryNight> nights = read_nights(options.reports, options.db);
  HistoryStore store(options.db, HistoryStore::Access::read_write);
  print_outcome(store.add(nights), options.db, out);
  const HistoryDocument doc = judged(store.nights(), options.judgement, [](const RunRow&) { return ""; });
  // The verdict of each node's latest night among those given (a backfill of a year prints one per node).
  std::map<std::string, std::string> latest;
  for (const HistoryNight& night : nights)
    latest[night.run.node] = std::max(latest[night.run.node], night.run.started_at);
  std::vector<std::pair<std::string, std::string>> asked(latest.begin(), latest.end());
  if (nights.size() > asked.size())
    out << fmt::format(
        "history: the verdict of each node's latest night given; `k25comm history page {}` shows every night\n",
        options.db);
  out << history_summary(doc, asked);
  return 0;
}

// Every report.json below `dir` (symbolic links not followed: a nightly's `latest`), in path order.
std::vector<std::string> reports_under(const std::string& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) throw UsageError(fmt::format("history rebuild: {}: not a folder", dir));
  std::vector<std::string> found;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error))
    if (it->path().filename() == "report.json" && it->is_regular_file(error))
      found.push_back(it->path().string());
  if (error) throw UsageError(fmt::format("history rebuild: cannot list {}: {}", dir, error.message()));
  std::sort(found.begin(), found.end());
  if (found.empty()) throw UsageError(fmt::format("history rebuild: no report.json under {}", dir));
  return found;
}

// A file removed when it goes out of scope unless kept.
class TemporaryFile {
 public:
  explicit TemporaryFile(std::string path) : path_(std::move(path)) {}
  ~TemporaryFile() {
    if (!kept_) {
      std::error_code error;
      fs::remove(path_, error);
      fs::remove(path_ + "-journal", error);
    }
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  const std::string& path() const { return path_; }
  void keep() { kept_ = true; }

 private:
  std::string path_;
  bool kept_ = false;
};

int rebuild(const HistoryCommandOptions& options, std::ostream& out) {
  const std::string db =
      options.db.empty() ? (fs::path(options.dir) / "history.sqlite").string() : options.db;
  const std::vector<std::string> reports = reports_under(options.dir);
  std::vector<HistoryNight> nights = read_nights(reports, db);
  // In the order nights are added night by night, so that the rebuilt store numbers its runs as a nightly
  // did.
  std::stable_sort(nights.begin(), nights.end(), [](const HistoryNight& a, const HistoryNight& b) {
    return std::tie(a.run.started_at, a.run.node) < std::tie(b.run.started_at, b.run.node);
  });
  TemporaryFile fresh(fmt::format("{}.rebuild-{}", db, ::getpid()));
  AddOutcome outcome;
  {
    HistoryStore store(fresh.path(), HistoryStore::Access::read_write);
    outcome = store.add(nights);
  }
  std::error_code error;
  fs::rename(fresh.path(), db, error);
  if (error) throw RuntimeFault(fmt::format("history rebuild: cannot replace {}: {}", db, error.message()));
  fresh.keep();
  out << fmt::format("history: rebuilt {} from {} report(s) under {}\n", db, reports.size(), options.dir);
  print_outcome(outcome, db, out);
  return 0;
}

int page(const HistoryCommandOptions& options, std::ostream& out) {
  const PageAssets assets = find_page_assets();
  const HistoryStore store(options.db, HistoryStore::Access::read_only);
  const fs::path out_dir = fs::absolute(options.out);
  const auto report_link = [&](const RunRow& run) {
    const fs::path report = report_location(options.db, run.report_path);
    fs::path target = report.parent_path() / "report.md";
    std::error_code error;
    if (!fs::is_regular_file(target, error)) target = report;
    return fs::absolute(target)
        .lexically_normal()
        .lexically_relative(out_dir.lexically_normal())
        .generic_string();
  };
  const HistoryDocument doc = judged(store.nights(), options.judgement, report_link);
  ensure_writable_directory(options.out);
  for (const PageFile& file : history_page_files(doc, assets))
    write_file_atomically((out_dir / file.name).string(),
                          file.copied_from.empty() ? file.content : read_whole_file(file.copied_from));
  int regressions = 0;
  for (const LatestVerdict& latest : doc.latest) regressions += latest.verdict == "regression";
  out << fmt::format(
      "history page: wrote {}/index.html and history.json: {} figure(s) of {} node(s) over {} night(s); {} verdict(s), "
      "{} change point(s); latest nights: {} regression(s)\n",
      options.out, doc.figures.size(), doc.nodes.size(), doc.runs.size(), doc.verdicts.size(),
      doc.change_points.size(), regressions);
  return 0;
}

// An SQLite database file starts with these 16 bytes (sqlite.org/fileformat.html).
bool is_sqlite_file(const std::string& path) {
  static constexpr std::string_view kMagic("SQLite format 3\0", 16);
  std::error_code error;
  if (!fs::is_regular_file(path, error)) return false;
  std::ifstream file(path, std::ios::binary);
  std::string head(kMagic.size(), '\0');
  file.read(head.data(), static_cast<std::streamsize>(head.size()));
  return file.gcount() == static_cast<std::streamsize>(kMagic.size()) && head == kMagic;
}

int metrics(const HistoryCommandOptions& options, std::ostream& out) {
  std::vector<HistoryNight> latest;
  if (is_sqlite_file(options.db)) {
    const HistoryStore store(options.db, HistoryStore::Access::read_only);
    for (HistoryNight& night : store.nights()) {  // by node, then start: the last of each node is its latest
      if (!latest.empty() && latest.back().run.node == night.run.node)
        latest.back() = std::move(night);
      else
        latest.push_back(std::move(night));
    }
  } else {
    latest.push_back(rows_from_report(read_report_file(options.db), options.db));
  }
  const std::string text = openmetrics_text(latest);
  if (options.out.empty()) {
    out << text;
  } else {
    write_file_atomically(options.out, text);
    out << fmt::format("history metrics: wrote {} ({} node(s))\n", options.out, latest.size());
  }
  return 0;
}

}  // namespace

int run_history_command(const HistoryCommandOptions& options, std::ostream& out) {
  switch (options.action) {
    case HistoryAction::add:
      return add(options, out);
    case HistoryAction::rebuild:
      return rebuild(options, out);
    case HistoryAction::page:
      return page(options, out);
    case HistoryAction::metrics:
      return metrics(options, out);
  }
  return 0;
}

}  // namespace k25
