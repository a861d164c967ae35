// RAII handles over libsqlite3 for the history store: a connection, a prepared statement and a transaction
// that rolls back unless committed. Every failure throws UsageError naming the database file and SQLite's
// reason (a file that is not a database, a corrupt one, a locked one).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace k25 {

class SqliteDatabase {
 public:
  enum class Mode { read_only, read_write_create };
  SqliteDatabase(const std::string& path, Mode mode);
  ~SqliteDatabase();
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  const std::string& path() const { return path_; }
  sqlite3* handle() const { return db_; }
  // Runs statements without results (DDL, BEGIN, COMMIT).
  void execute(const std::string& sql);
  // The rowid of the last row this connection inserted.
  std::int64_t last_insert_id() const;
  [[noreturn]] void fail(const std::string& what, int rc) const;

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

class SqliteStatement {
 public:
  SqliteStatement(SqliteDatabase& db, const std::string& sql);
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  // Parameters count from 1, as SQLite's do.
  void bind(int index, std::string_view text);
  void bind(int index, std::int64_t value);
  void bind(int index, double value);
  void bind(int index, const std::optional<double>& value);
  void bind(int index, const std::optional<long long>& value);
  // True with a row to read, false when done; throws on an error.
  bool step();
  // Ready to run again with new parameters.
  void reset();

  bool is_null(int column) const;
  std::int64_t integer(int column) const;
  double real(int column) const;
  std::string text(int column) const;
  std::optional<double> optional_real(int column) const;
  std::optional<long long> optional_integer(int column) const;

 private:
  SqliteDatabase& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE on construction; ROLLBACK on destruction unless commit() ran.
class SqliteTransaction {
 public:
  explicit SqliteTransaction(SqliteDatabase& db);
  ~SqliteTransaction();
  SqliteTransaction(const SqliteTransaction&) = delete;
  SqliteTransaction& operator=(const SqliteTransaction&) = delete;
  void commit();

 private:
  SqliteDatabase& db_;
  bool done_ = false;
};

}  // namespace k25
