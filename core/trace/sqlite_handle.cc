// SPDX-License-Identifier: Apache-2.0
#include "core/trace/sqlite_handle.h"

#include <limits>
#include <string>

namespace railyard::trace::internal {
namespace {

// A path as the path part of a file: URI: '?', '#', '%' and anything unusual percent-encoded.
std::string UriEscape(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(path.size());
  for (const char c : path) {
    const auto byte = static_cast<unsigned char>(c);
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '/' || c == '-' || c == '.' || c == '_' || c == '~';
    if (plain) {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    }
  }
  return out;
}

}  // namespace

Database::~Database() {
  // close_v2 defers the close until stray statements are finalized instead of failing.
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

Status Database::Open(const std::string& path, int flags, std::string_view uri_parameters) {
  if (db_ != nullptr) return Status::InvalidArgument(path + ": connection is already open");
  path_ = path;
  std::string name = path;
  if (!uri_parameters.empty()) {
    name = "file:" + UriEscape(path) + "?" + std::string(uri_parameters);
    flags |= SQLITE_OPEN_URI;
  }
  const int rc = sqlite3_open_v2(name.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    Status status = Error(rc, "open");
    sqlite3_close_v2(db_);
    db_ = nullptr;
    return status;
  }
  sqlite3_extended_result_codes(db_, 1);
  return Status::Ok();
}

Status Database::Close() {
  if (db_ == nullptr) return Status::Ok();
  const int rc = sqlite3_close(db_);
  if (rc != SQLITE_OK) return Error(rc, "close");
  db_ = nullptr;
  return Status::Ok();
}

Status Database::Exec(const char* sql) {
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  return rc == SQLITE_OK ? Status::Ok() : Error(rc, sql);
}

Status Database::Error(int rc, std::string_view what) const {
  // The connection's message is the most specific ("no such table: meta"); without a
  // connection there is only the code's generic text.
  std::string message = path_;
  message += ": ";
  if (!what.empty()) {
    message += '"';
    message += what;
    message += "\": ";
  }
  message += db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
  message += " (SQLite code " + std::to_string(rc) + ")";
  switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Status::Corruption(std::move(message));
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Busy(std::move(message));
    default:
      return Status::IOError(std::move(message));
  }
}

Status Statement::Prepare(Database* db, const char* sql) {
  Finalize();
  db_ = db;
  const int rc = sqlite3_prepare_v3(db->get(), sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
  if (rc != SQLITE_OK) {
    Status status = db->Error(rc, sql);
    Finalize();
    return status;
  }
  return Status::Ok();
}

void Statement::Finalize() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
  stmt_ = nullptr;
  bind_error_ = SQLITE_OK;
}

void Statement::BindInt64(int index, int64_t value) {
  const int rc = sqlite3_bind_int64(stmt_, index, value);
  if (bind_error_ == SQLITE_OK) bind_error_ = rc;
}

void Statement::BindText(int index, std::string_view value) {
  const int rc = value.size() > static_cast<size_t>(std::numeric_limits<int>::max())
                     ? SQLITE_TOOBIG
                     : sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                                         SQLITE_STATIC);
  if (bind_error_ == SQLITE_OK) bind_error_ = rc;
}

void Statement::BindBlob(int index, std::string_view bytes) {
  const int rc = bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())
                     ? SQLITE_TOOBIG
                     : sqlite3_bind_blob(stmt_, index, bytes.data(), static_cast<int>(bytes.size()),
                                         SQLITE_STATIC);
  if (bind_error_ == SQLITE_OK) bind_error_ = rc;
}

Status Statement::Fail(int rc) const { return db_->Error(rc, sqlite3_sql(stmt_)); }

Status Statement::Step(bool* row) {
  *row = false;
  if (bind_error_ != SQLITE_OK) return Fail(bind_error_);
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) {
    *row = true;
    return Status::Ok();
  }
  if (rc == SQLITE_DONE) return Status::Ok();
  return Fail(rc);
}

Status Statement::Run() {
  ScopedReset reset(this);
  bool row = false;
  Status status = Step(&row);
  while (status.ok() && row) status = Step(&row);
  return status;
}

void Statement::Reset() {
  if (stmt_ == nullptr) return;
  sqlite3_reset(stmt_);  // Repeats the last step's error, which Step() already reported.
  sqlite3_clear_bindings(stmt_);
  bind_error_ = SQLITE_OK;
}

int64_t Statement::ColumnInt64(int column) const { return sqlite3_column_int64(stmt_, column); }

bool Statement::ColumnIsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::string_view Statement::ColumnText(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  if (text == nullptr) return {};
  return {text, static_cast<size_t>(sqlite3_column_bytes(stmt_, column))};
}

std::string_view Statement::ColumnBlob(int column) const {
  const auto* bytes = static_cast<const char*>(sqlite3_column_blob(stmt_, column));
  if (bytes == nullptr) return {};
  return {bytes, static_cast<size_t>(sqlite3_column_bytes(stmt_, column))};
}

}  // namespace railyard::trace::internal
