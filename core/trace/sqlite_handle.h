// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to core/trace: owning wrappers for a SQLite connection and its prepared statements.
// Every failure becomes a Status whose message names the database file and the failing
// statement.
//
// Thread safety: a Database and its Statements are used by one thread at a time (connections are
// opened with SQLITE_OPEN_NOMUTEX).

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "core/trace/status.h"

namespace railyard::trace::internal {

class Database {
 public:
  Database() = default;
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // `flags` are SQLITE_OPEN_* flags. Non-empty `uri_parameters` ("immutable=1") open `path` as a
  // file: URI with those query parameters; messages still name the plain path. On failure the
  // connection is closed again.
  Status Open(const std::string& path, int flags, std::string_view uri_parameters = {});
  // Closes the connection; every Statement prepared on it must have been finalized. Idempotent.
  Status Close();

  sqlite3* get() const { return db_; }
  const std::string& path() const { return path_; }

  // Runs `sql`, which returns no rows (it may hold several statements).
  Status Exec(const char* sql);

  // The Status for SQLite result code `rc` from `what` (a statement's text, or an action).
  Status Error(int rc, std::string_view what) const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

class Statement {
 public:
  Statement() = default;
  ~Statement() { Finalize(); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Prepares `sql` on `db` for repeated use. REQUIRES: `db` outlives this statement (or
  // Finalize() is called first).
  Status Prepare(Database* db, const char* sql);
  void Finalize();
  bool prepared() const { return stmt_ != nullptr; }

  // Parameters are 1-based. Text and blobs are not copied: they must stay alive until Reset().
  // A failed bind is reported by the next Step() or Run().
  void BindInt64(int index, int64_t value);
  void BindText(int index, std::string_view value);
  void BindBlob(int index, std::string_view bytes);

  // Advances to the next row: *row is true if there is one, false at the end.
  Status Step(bool* row);
  // Steps a statement that returns no rows to completion, then resets it.
  Status Run();
  // Ends the current execution (releasing its read snapshot) and clears the bindings.
  void Reset();

  // Columns are 0-based. REQUIRES: the last Step() produced a row. Views are valid until the next
  // Step() or Reset().
  int64_t ColumnInt64(int column) const;
  bool ColumnIsNull(int column) const;
  std::string_view ColumnText(int column) const;
  std::string_view ColumnBlob(int column) const;

 private:
  Status Fail(int rc) const;

  Database* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  int bind_error_ = SQLITE_OK;
};

// Resets a statement when leaving the scope, so that no path leaves an execution (and with it a
// read transaction) open.
class ScopedReset {
 public:
  explicit ScopedReset(Statement* statement) : statement_(statement) {}
  ~ScopedReset() { statement_->Reset(); }
  ScopedReset(const ScopedReset&) = delete;
  ScopedReset& operator=(const ScopedReset&) = delete;

 private:
  Statement* statement_;
};

}  // namespace railyard::trace::internal
