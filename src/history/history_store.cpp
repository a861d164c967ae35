// The history store in SQLite (history_store.hpp).
#include "history/history_store.hpp"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "common/error.hpp"
#include "history/sqlite_handles.hpp"

namespace k25 {

namespace fs = std::filesystem;

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE history_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE run(
  id INTEGER PRIMARY KEY,
  node TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  report_path TEXT NOT NULL,
  report_schema_version INTEGER NOT NULL,
  tool_version TEXT NOT NULL,
  k25comm_commit TEXT NOT NULL,
  config_hash TEXT NOT NULL,
  model TEXT NOT NULL,
  topology TEXT NOT NULL,
  gpus TEXT NOT NULL,
  gpu_count INTEGER NOT NULL,
  driver TEXT NOT NULL,
  cuda TEXT NOT NULL,
  nccl TEXT NOT NULL,
  mpi TEXT NOT NULL,
  transport TEXT NOT NULL,
  ranks INTEGER NOT NULL,
  complete INTEGER NOT NULL,
  wrong INTEGER NOT NULL,
  oversubscribed INTEGER NOT NULL,
  UNIQUE(node, started_at));
CREATE TABLE run_env(
  run_id INTEGER NOT NULL REFERENCES run(id),
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY(run_id, name));
CREATE TABLE figure(
  run_id INTEGER NOT NULL REFERENCES run(id),
  phase TEXT NOT NULL,
  tokens INTEGER NOT NULL,
  concurrency INTEGER NOT NULL,
  mode TEXT NOT NULL,
  backend TEXT NOT NULL,
  statistic TEXT NOT NULL,
  value REAL NOT NULL,
  unit TEXT NOT NULL,
  spread REAL,
  p90 REAL,
  p99 REAL,
  mean REAL,
  samples INTEGER,
  PRIMARY KEY(run_id, phase, tokens, concurrency, mode, backend, statistic));
)sql";

constexpr const char* kRunColumns =
    "node, started_at, finished_at, report_path, report_schema_version, tool_version, k25comm_commit, "
    "config_hash, model, topology, gpus, gpu_count, driver, cuda, nccl, mpi, transport, ranks, complete, wrong, "
    "oversubscribed";

bool has_table(SqliteDatabase& db, const std::string& name) {
  SqliteStatement query(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
  query.bind(1, name);
  return query.step();
}

int table_count(SqliteDatabase& db) {
  SqliteStatement query(db, "SELECT count(*) FROM sqlite_master");
  query.step();
  return static_cast<int>(query.integer(0));
}

void create_schema(SqliteDatabase& db) {
  SqliteTransaction transaction(db);
  db.execute(kSchema);
  SqliteStatement meta(db, "INSERT INTO history_meta(key, value) VALUES (?, ?)");
  meta.bind(1, std::string_view("schema_version"));
  meta.bind(2, std::to_string(kHistoryStoreSchemaVersion));
  meta.step();
  transaction.commit();
}

void check_schema(SqliteDatabase& db) {
  if (!has_table(db, "history_meta") || !has_table(db, "run") || !has_table(db, "figure") ||
      !has_table(db, "run_env"))
    throw UsageError(fmt::format(
        "{}: an SQLite database, but not a k25comm history store (no history_meta, run, run_env and figure tables)",
        db.path()));
  SqliteStatement query(db, "SELECT value FROM history_meta WHERE key = 'schema_version'");
  if (!query.step())
    throw UsageError(fmt::format("{}: a history store without a schema_version in history_meta", db.path()));
  const std::string version = query.text(0);
  if (version != std::to_string(kHistoryStoreSchemaVersion))
    throw UsageError(
        fmt::format("{}: history store schema_version {} is not supported (this build reads version {})",
                    db.path(), version, kHistoryStoreSchemaVersion));
}

std::int64_t as_integer(bool flag) {
  return flag ? 1 : 0;
}

void insert_night(SqliteDatabase& db, const HistoryNight& night) {
  const RunRow& r = night.run;
  SqliteStatement run(
      db, fmt::format("INSERT INTO run({}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                      "?, ?, ?, ?, ?)",
                      kRunColumns));
  int i = 0;
  for (const std::string* text : {&r.node, &r.started_at, &r.finished_at, &r.report_path})
    run.bind(++i, *text);
  run.bind(++i, std::int64_t{r.report_schema_version});
  for (const std::string* text : {&r.tool_version, &r.commit, &r.config_hash, &r.model, &r.topology, &r.gpus})
    run.bind(++i, *text);
  run.bind(++i, std::int64_t{r.gpu_count});
  for (const std::string* text : {&r.driver, &r.cuda, &r.nccl, &r.mpi, &r.transport}) run.bind(++i, *text);
  run.bind(++i, std::int64_t{r.ranks});
  for (const bool flag : {r.complete, r.wrong, r.oversubscribed}) run.bind(++i, as_integer(flag));
  run.step();
  const std::int64_t run_id = db.last_insert_id();

  SqliteStatement env(db, "INSERT INTO run_env(run_id, name, value) VALUES (?, ?, ?)");
  for (const auto& [name, value] : r.nccl_env) {
    env.bind(1, run_id);
    env.bind(2, name);
    env.bind(3, value);
    env.step();
    env.reset();
  }
  SqliteStatement figure(
      db,
      "INSERT INTO figure(run_id, phase, tokens, concurrency, mode, backend, statistic, value, "
      "unit, spread, p90, p99, mean, samples) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const FigureRow& f : night.figures) {
    figure.bind(1, run_id);
    figure.bind(2, f.key.phase);
    figure.bind(3, std::int64_t{f.key.tokens});
    figure.bind(4, std::int64_t{f.key.concurrency});
    figure.bind(5, f.key.mode);
    figure.bind(6, f.key.backend);
    figure.bind(7, f.key.statistic);
    figure.bind(8, f.value);
    figure.bind(9, f.unit);
    figure.bind(10, f.spread);
    figure.bind(11, f.p90);
    figure.bind(12, f.p99);
    figure.bind(13, f.mean);
    figure.bind(14, f.samples);
    figure.step();
    figure.reset();
  }
}

int as_int(std::int64_t value) {
  return static_cast<int>(
      std::clamp<std::int64_t>(value, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}

}  // namespace

HistoryStore::HistoryStore(const std::string& path, Access access) : path_(path) {
  std::error_code error;
  const bool exists = fs::exists(path, error);
  if (access == Access::read_only && !exists)
    throw UsageError(fmt::format("{}: no such history store", path));
  if (exists && fs::is_directory(path, error))
    throw UsageError(fmt::format("{}: a folder, not a history store file", path));
  db_ = std::make_unique<SqliteDatabase>(path, access == Access::read_only
                                                   ? SqliteDatabase::Mode::read_only
                                                   : SqliteDatabase::Mode::read_write_create);
  if (access == Access::read_write && table_count(*db_) == 0) create_schema(*db_);
  check_schema(*db_);
}

HistoryStore::~HistoryStore() = default;

AddOutcome HistoryStore::add(const std::vector<HistoryNight>& nights) {
  AddOutcome outcome;
  SqliteTransaction transaction(*db_);
  SqliteStatement existing(*db_, "SELECT report_path FROM run WHERE node = ? AND started_at = ?");
  for (const HistoryNight& night : nights) {
    existing.bind(1, night.run.node);
    existing.bind(2, night.run.started_at);
    if (existing.step()) {
      outcome.already_there.push_back({night.run.report_path, existing.text(0)});
    } else {
      insert_night(*db_, night);
      outcome.added.push_back(night.run.report_path);
    }
    existing.reset();
  }
  transaction.commit();
  return outcome;
}

std::vector<HistoryNight> HistoryStore::nights() const {
  std::vector<HistoryNight> nights;
  std::map<std::int64_t, std::size_t> index_of_run;
  SqliteStatement runs(*db_, fmt::format("SELECT id, {} FROM run ORDER BY node, started_at", kRunColumns));
  while (runs.step()) {
    HistoryNight night;
    RunRow& r = night.run;
    int c = 0;
    const std::int64_t id = runs.integer(c++);
    for (std::string* text : {&r.node, &r.started_at, &r.finished_at, &r.report_path}) *text = runs.text(c++);
    r.report_schema_version = as_int(runs.integer(c++));
    for (std::string* text : {&r.tool_version, &r.commit, &r.config_hash, &r.model, &r.topology, &r.gpus})
      *text = runs.text(c++);
    r.gpu_count = as_int(runs.integer(c++));
    for (std::string* text : {&r.driver, &r.cuda, &r.nccl, &r.mpi, &r.transport}) *text = runs.text(c++);
    r.ranks = as_int(runs.integer(c++));
    for (bool* flag : {&r.complete, &r.wrong, &r.oversubscribed}) *flag = runs.integer(c++) != 0;
    index_of_run[id] = nights.size();
    nights.push_back(std::move(night));
  }
  SqliteStatement env(*db_, "SELECT run_id, name, value FROM run_env ORDER BY run_id, name");
  while (env.step()) {
    const auto found = index_of_run.find(env.integer(0));
    if (found != index_of_run.end()) nights[found->second].run.nccl_env[env.text(1)] = env.text(2);
  }
  SqliteStatement figures(
      *db_,
      "SELECT run_id, phase, tokens, concurrency, mode, backend, statistic, value, unit, spread, "
      "p90, p99, mean, samples FROM figure "
      "ORDER BY run_id, phase, tokens, concurrency, mode, backend, statistic");
  while (figures.step()) {
    const auto found = index_of_run.find(figures.integer(0));
    if (found == index_of_run.end()) continue;
    FigureRow f;
    f.key.phase = figures.text(1);
    f.key.tokens = as_int(figures.integer(2));
    f.key.concurrency = as_int(figures.integer(3));
    f.key.mode = figures.text(4);
    f.key.backend = figures.text(5);
    f.key.statistic = figures.text(6);
    f.value = figures.real(7);
    f.unit = figures.text(8);
    f.spread = figures.optional_real(9);
    f.p90 = figures.optional_real(10);
    f.p99 = figures.optional_real(11);
    f.mean = figures.optional_real(12);
    f.samples = figures.optional_integer(13);
    nights[found->second].figures.push_back(std::move(f));
  }
  for (HistoryNight& night : nights)
    std::stable_sort(night.figures.begin(), night.figures.end(),
                     [](const FigureRow& a, const FigureRow& b) { return a.key < b.key; });
  return nights;
}

std::string store_report_path(const std::string& store_path, const std::string& report_path) {
  std::error_code error;
  const fs::path report = fs::weakly_canonical(fs::absolute(report_path), error);
  const fs::path folder = fs::weakly_canonical(fs::absolute(store_path), error).parent_path();
  const fs::path relative = report.lexically_relative(folder);
  if (!relative.empty() && *relative.begin() != "..") return relative.generic_string();
  return report.generic_string();
}

std::string report_location(const std::string& store_path, const std::string& stored) {
  const fs::path path(stored);
  if (path.is_absolute()) return path.string();
  return (fs::absolute(store_path).parent_path() / path).lexically_normal().string();
}

}  // namespace k25
