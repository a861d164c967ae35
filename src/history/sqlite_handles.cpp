// The history store's SQLite handles (sqlite_handles.hpp).
#include "history/sqlite_handles.hpp"

#include <sqlite3.h>

#include <fmt/format.h>

#include "common/error.hpp"

namespace k25 {

SqliteDatabase::SqliteDatabase(const std::string& path, Mode mode) : path_(path) {
  const int flags =
      mode == Mode::read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) fail("cannot open", rc);
  sqlite3_busy_timeout(db_, 10000);  // another nightly writing the same store: wait for it, bounded
}

SqliteDatabase::~SqliteDatabase() {
  sqlite3_close(db_);
}

void SqliteDatabase::execute(const std::string& sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
  sqlite3_free(message);
  if (rc != SQLITE_OK) fail(fmt::format("cannot run '{}'", sql.substr(0, 40)), rc);
}

std::int64_t SqliteDatabase::last_insert_id() const {
  return sqlite3_last_insert_rowid(db_);
}

void SqliteDatabase::fail(const std::string& what, int rc) const {
  const std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
  const int primary = rc & 0xff;
  if (primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT)
    throw UsageError(
        fmt::format("{}: not a history store: not an SQLite database or a corrupt one ({})", path_, message));
  throw UsageError(fmt::format("{}: {}: {}", path_, what, message));
}

SqliteStatement::SqliteStatement(SqliteDatabase& db, const std::string& sql) : db_(db) {
  const int rc = sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &stmt_, nullptr);
  if (rc != SQLITE_OK) db.fail(fmt::format("cannot prepare '{}'", sql.substr(0, 40)), rc);
}

SqliteStatement::~SqliteStatement() {
  sqlite3_finalize(stmt_);
}

void SqliteStatement::bind(int index, std::string_view text) {
  const int rc =
      sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) db_.fail("cannot bind", rc);
}

void SqliteStatement::bind(int index, std::int64_t value) {
  const int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) db_.fail("cannot bind", rc);
}

void SqliteStatement::bind(int index, double value) {
  const int rc = sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK) db_.fail("cannot bind", rc);
}

void SqliteStatement::bind(int index, const std::optional<double>& value) {
  const int rc = value ? sqlite3_bind_double(stmt_, index, *value) : sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) db_.fail("cannot bind", rc);
}

void SqliteStatement::bind(int index, const std::optional<long long>& value) {
  const int rc = value ? sqlite3_bind_int64(stmt_, index, *value) : sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) db_.fail("cannot bind", rc);
}

bool SqliteStatement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail("cannot read or write", rc);
}

void SqliteStatement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool SqliteStatement::is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::int64_t SqliteStatement::integer(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

double SqliteStatement::real(int column) const {
  return sqlite3_column_double(stmt_, column);
}

std::string SqliteStatement::text(int column) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  return p != nullptr ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))) : "";
}

std::optional<double> SqliteStatement::optional_real(int column) const {
  if (is_null(column)) return std::nullopt;
  return real(column);
}

std::optional<long long> SqliteStatement::optional_integer(int column) const {
  if (is_null(column)) return std::nullopt;
  return integer(column);
}

SqliteTransaction::SqliteTransaction(SqliteDatabase& db) : db_(db) {
  db_.execute("BEGIN IMMEDIATE");
}

SqliteTransaction::~SqliteTransaction() {
  if (!done_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void SqliteTransaction::commit() {
  db_.execute("COMMIT");
  done_ = true;
}

}  // namespace k25
