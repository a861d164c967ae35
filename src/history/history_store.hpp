// The nightly history store (history.sqlite): every night of every node, a run row and its figure rows, in
// one SQLite file with a schema version of its own. The reports stay the truth: the store is rebuilt from
// them with the same rows. Adding is one transaction: a report already there adds nothing, and a failure
// leaves the store as it was.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "history/history_rows.hpp"

namespace k25 {

// 1: history_meta, run (with run_env) and figure.
inline constexpr int kHistoryStoreSchemaVersion = 1;

class SqliteDatabase;

// What adding nights did: the report of each night added, and of each night the store had already (with the
// report it was first added from).
struct AddOutcome {
  std::vector<std::string> added;
  struct Skipped {
    std::string report_path, first_added_from;
  };
  std::vector<Skipped> already_there;
};

class HistoryStore {
 public:
  enum class Access { read_only, read_write };
  // Opens the store at `path`. read_write creates it (and its tables) where there is no file or an empty one;
  // read_only needs one. Throws UsageError naming the file when it is not an SQLite database, is one without
  // the history's tables (a foreign database), or is a store of another schema version.
  HistoryStore(const std::string& path, Access access);
  ~HistoryStore();
  HistoryStore(const HistoryStore&) = delete;
  HistoryStore& operator=(const HistoryStore&) = delete;

  const std::string& path() const { return path_; }
  // Adds the nights in one transaction; a night whose (node, started_at) the store has is skipped.
  AddOutcome add(const std::vector<HistoryNight>& nights);
  // Every night, by node, then by start time, each with its figures in key order.
  std::vector<HistoryNight> nights() const;

 private:
  std::string path_;
  std::unique_ptr<SqliteDatabase> db_;
};

// How the store names a report: relative to the store's folder where the report lies below it (so that a
// nightly folder moved or downloaded as a whole keeps its links), else absolute.
std::string store_report_path(const std::string& store_path, const std::string& report_path);

// Where a report the store names lies: `stored` against the store's folder (absolute paths as they are).
std::string report_location(const std::string& store_path, const std::string& stored);

}  // namespace k25
