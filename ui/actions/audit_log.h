// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QStringList>
#include <QVector>

struct sqlite3;

namespace railyard::ui {

// One action an operator took from the console, and what came of it.
struct AuditEntry {
  qint64 id = 0;  // Assigned by append.
  qint64 unix_ms = 0;
  QString user;  // The OS user running the console.
  QString node_name;
  QString node_address;
  QString action;  // drain, undrain, flush, compact
  QString detail;  // e.g. "indexes 12, 13", and the node's answer
  QString result;  // "OK", "refused: ...", "failed: ..."
  bool ok = false;
};

struct AuditQuery {
  QString text;    // Substring of any field (case-insensitive for ASCII); empty: any.
  QString node;    // Node name or address, exactly; empty: any.
  QString action;  // Exactly; empty: any.
  int limit = 1000;
};

// The console's audit log: a SQLite file (one table, `audit`) that survives restarts and can be
// searched. Each console appends its own rows; nodes keep their own audit lines as well.
//
// Thread safety: not thread-safe; the console uses it from the GUI thread only.
class AuditLog {
 public:
  AuditLog();
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  // Opens (creating the file, its folder and the table if needed). Closes any file open before.
  bool Open(const QString& path, QString* error);
  void Close();
  bool IsOpen() const { return db_ != nullptr; }
  const QString& Path() const { return path_; }

  bool Append(AuditEntry* entry, QString* error);
  // Newest first.
  QVector<AuditEntry> Search(const AuditQuery& query, QString* error = nullptr) const;
  // Distinct values seen, for filter menus.
  QStringList Nodes() const;
  QStringList Actions() const;

  // The OS user name ("unknown" if it cannot be found).
  static QString CurrentUser();

 private:
  QStringList Distinct(const char* column) const;

  sqlite3* db_ = nullptr;
  QString path_;
};

}  // namespace railyard::ui
