// SPDX-License-Identifier: Apache-2.0
// kv_bench adapter for SQLite: one table (id INTEGER PRIMARY KEY, v BLOB) used through prepared
// statements.
//
// SQLite syncs at every commit by default and makes every statement outside a transaction its own
// commit. To match the other engines' "no sync per write" it runs with PRAGMA synchronous=OFF and
// groups writes into transactions of kOpsPerTransaction. Reads are grouped the same way, so that
// a read does not pay for taking and dropping the file lock and re-validating the page cache.
// Everything else (journal mode, page size, cache size) keeps SQLite's defaults.
//
// The id column holds the key's 64 bits as a signed integer (SQLite has no unsigned type).
#include <sqlite3.h>

#include <bit>
#include <cstdint>
#include <memory>
#include <string>

#include "bench/kv_engine.h"

namespace railyard::bench {
namespace {

class SqliteEngine final : public KvEngine {
 public:
  static constexpr uint64_t kOpsPerTransaction = 10000;

  ~SqliteEngine() override {
    std::string ignored;
    Close(&ignored);
  }

  bool Open(const std::string& directory, std::string* error) override {
    path_ = directory + "/kv.sqlite3";
    const int rc =
        sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    if (rc != SQLITE_OK) {
      *error = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
      std::string ignored;
      Close(&ignored);
      return false;
    }
    if (!Exec("PRAGMA synchronous=OFF", error) ||
        !Exec("CREATE TABLE kv (id INTEGER PRIMARY KEY, v BLOB)", error) ||
        !Prepare("INSERT INTO kv (id, v) VALUES (?1, ?2)", &insert_, error) ||
        !Prepare("SELECT v FROM kv WHERE id = ?1", &select_, error) ||
        !Prepare("BEGIN", &begin_, error) || !Prepare("COMMIT", &commit_, error)) {
      std::string ignored;
      Close(&ignored);
      return false;
    }
    return true;
  }

  bool Put(uint64_t key, std::string_view value, std::string* error) override {
    if (!EnsureTransaction(error)) return false;
    sqlite3_bind_int64(insert_, 1, std::bit_cast<sqlite3_int64>(key));
    sqlite3_bind_blob(insert_, 2, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
    const int rc = sqlite3_step(insert_);
    // SQLITE_STATIC: SQLite has copied the value by the time the step returns; the next Put binds
    // a new one before the statement runs again.
    sqlite3_reset(insert_);
    if (rc != SQLITE_DONE) {
      *error = std::string("insert: ") + sqlite3_errmsg(db_);
      return false;
    }
    return CountOperation(error);
  }

  bool FinishWrites(std::string* error) override { return CommitIfOpen(error); }

  ReadOutcome Get(uint64_t key, std::string* value, std::string* error) override {
    if (!EnsureTransaction(error)) return ReadOutcome::kFailed;
    sqlite3_bind_int64(select_, 1, std::bit_cast<sqlite3_int64>(key));
    const int rc = sqlite3_step(select_);
    ReadOutcome outcome = ReadOutcome::kFailed;
    if (rc == SQLITE_ROW) {
      const void* blob = sqlite3_column_blob(select_, 0);
      const int size = sqlite3_column_bytes(select_, 0);
      value->assign(static_cast<const char*>(blob), static_cast<size_t>(size));
      outcome = ReadOutcome::kFound;
    } else if (rc == SQLITE_DONE) {
      outcome = ReadOutcome::kNotFound;
    } else {
      *error = std::string("select: ") + sqlite3_errmsg(db_);
    }
    sqlite3_reset(select_);
    if (!CountOperation(error)) return ReadOutcome::kFailed;
    return outcome;
  }

  bool FinishReads(std::string* error) override { return CommitIfOpen(error); }

  bool Close(std::string* error) override {
    if (db_ == nullptr) return true;
    bool ok = CommitIfOpen(error);
    for (sqlite3_stmt** statement : {&insert_, &select_, &begin_, &commit_}) {
      sqlite3_finalize(*statement);
      *statement = nullptr;
    }
    if (sqlite3_close(db_) != SQLITE_OK && ok) {
      *error = std::string("close: ") + sqlite3_errmsg(db_);
      ok = false;
    }
    db_ = nullptr;
    return ok;
  }

  std::string Describe() const override {
    return std::string("SQLite ") + sqlite3_libversion() + ": " + path_ +
           ", table (id INTEGER PRIMARY KEY, v BLOB), prepared statements, synchronous=OFF, " +
           std::to_string(kOpsPerTransaction) + " operations per transaction, otherwise defaults";
  }

 private:
  bool Exec(const char* sql, std::string* error) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) == SQLITE_OK) return true;
    *error = std::string(sql) + ": " + (message != nullptr ? message : sqlite3_errmsg(db_));
    sqlite3_free(message);
    return false;
  }

  bool Prepare(const char* sql, sqlite3_stmt** statement, std::string* error) {
    if (sqlite3_prepare_v2(db_, sql, -1, statement, nullptr) == SQLITE_OK) return true;
    *error = std::string(sql) + ": " + sqlite3_errmsg(db_);
    return false;
  }

  bool Step(sqlite3_stmt* statement, const char* what, std::string* error) {
    const int rc = sqlite3_step(statement);
    sqlite3_reset(statement);
    if (rc == SQLITE_DONE) return true;
    *error = std::string(what) + ": " + sqlite3_errmsg(db_);
    return false;
  }

  // Asks SQLite rather than remembering: a failed statement may have rolled the transaction back.
  bool InTransaction() const { return sqlite3_get_autocommit(db_) == 0; }

  bool EnsureTransaction(std::string* error) {
    if (InTransaction()) return true;
    ops_in_transaction_ = 0;
    return Step(begin_, "begin", error);
  }

  bool CountOperation(std::string* error) {
    if (++ops_in_transaction_ < kOpsPerTransaction) return true;
    return CommitIfOpen(error);
  }

  bool CommitIfOpen(std::string* error) {
    ops_in_transaction_ = 0;
    if (!InTransaction()) return true;
    return Step(commit_, "commit", error);
  }

  std::string path_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
  sqlite3_stmt* select_ = nullptr;
  sqlite3_stmt* begin_ = nullptr;
  sqlite3_stmt* commit_ = nullptr;
  uint64_t ops_in_transaction_ = 0;
};

}  // namespace

std::unique_ptr<KvEngine> MakeSqliteEngine() { return std::make_unique<SqliteEngine>(); }

}  // namespace railyard::bench
