// SPDX-License-Identifier: Apache-2.0
#include "ui/actions/audit_log.h"

#include <pwd.h>
#include <sqlite3.h>
#include <unistd.h>

#include <QDir>
#include <QFileInfo>

namespace railyard::ui {

namespace {

constexpr char kSchema[] =
    "CREATE TABLE IF NOT EXISTS audit ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " unix_ms INTEGER NOT NULL,"
    " user TEXT NOT NULL,"
    " node_name TEXT NOT NULL,"
    " node_address TEXT NOT NULL,"
    " action TEXT NOT NULL,"
    " detail TEXT NOT NULL,"
    " result TEXT NOT NULL,"
    " ok INTEGER NOT NULL);"
    "CREATE INDEX IF NOT EXISTS audit_time ON audit(unix_ms);";

// Finalizes a statement on every path out of a function.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) {
    rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  bool Ok() const { return rc_ == SQLITE_OK; }
  sqlite3_stmt* Get() const { return stmt_; }
  void Bind(int i, const QString& text) {
    const QByteArray utf8 = text.toUtf8();
    sqlite3_bind_text(stmt_, i, utf8.constData(), int(utf8.size()), SQLITE_TRANSIENT);
  }
  void Bind(int i, qint64 value) { sqlite3_bind_int64(stmt_, i, value); }
  QString Text(int column) const {
    return QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column)),
                             sqlite3_column_bytes(stmt_, column));
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_ERROR;
};

QString LastError(sqlite3* db) { return QString::fromUtf8(sqlite3_errmsg(db)); }

QString EscapeLike(QString text) {
  text.replace('\\', "\\\\");
  text.replace('%', "\\%");
  text.replace('_', "\\_");
  return '%' + text + '%';
}

}  // namespace

AuditLog::AuditLog() = default;

AuditLog::~AuditLog() { Close(); }

void AuditLog::Close() {
  if (db_) sqlite3_close(db_);
  db_ = nullptr;
  path_.clear();
}

bool AuditLog::Open(const QString& path, QString* error) {
  Close();
  const QString folder = QFileInfo(path).absolutePath();
  if (!QDir().mkpath(folder)) {
    if (error) *error = QStringLiteral("cannot create the folder %1").arg(folder);
    return false;
  }
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.toUtf8().constData(), &db,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    if (error) {
      *error = QStringLiteral("cannot open the audit log %1: %2")
                   .arg(path, db ? LastError(db) : QString::fromUtf8(sqlite3_errstr(rc)));
    }
    sqlite3_close(db);
    return false;
  }
  sqlite3_busy_timeout(db, 2000);  // Two consoles may share a log: wait briefly, never forever.
  char* message = nullptr;
  if (sqlite3_exec(db, kSchema, nullptr, nullptr, &message) != SQLITE_OK) {
    if (error) {
      *error = QStringLiteral("%1 is not a usable audit log: %2")
                   .arg(path, QString::fromUtf8(message ? message : "unknown error"));
    }
    sqlite3_free(message);
    sqlite3_close(db);
    return false;
  }
  db_ = db;
  path_ = path;
  return true;
}

bool AuditLog::Append(AuditEntry* entry, QString* error) {
  if (!db_) {
    if (error) *error = QStringLiteral("the audit log is not open");
    return false;
  }
  Statement s(db_,
              "INSERT INTO audit (unix_ms, user, node_name, node_address, action, detail, "
              "result, ok) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  if (!s.Ok()) {
    if (error) *error = LastError(db_);
    return false;
  }
  s.Bind(1, entry->unix_ms);
  s.Bind(2, entry->user);
  s.Bind(3, entry->node_name);
  s.Bind(4, entry->node_address);
  s.Bind(5, entry->action);
  s.Bind(6, entry->detail);
  s.Bind(7, entry->result);
  s.Bind(8, qint64(entry->ok ? 1 : 0));
  if (sqlite3_step(s.Get()) != SQLITE_DONE) {
    if (error) *error = QStringLiteral("writing the audit log %1: %2").arg(path_, LastError(db_));
    return false;
  }
  entry->id = sqlite3_last_insert_rowid(db_);
  return true;
}

QVector<AuditEntry> AuditLog::Search(const AuditQuery& query, QString* error) const {
  QVector<AuditEntry> out;
  if (!db_) {
    if (error) *error = QStringLiteral("the audit log is not open");
    return out;
  }
  Statement s(db_,
              "SELECT id, unix_ms, user, node_name, node_address, action, detail, result, ok "
              "FROM audit WHERE"
              " (?1 = '' OR user LIKE ?2 ESCAPE '\\' OR node_name LIKE ?2 ESCAPE '\\'"
              "  OR node_address LIKE ?2 ESCAPE '\\' OR action LIKE ?2 ESCAPE '\\'"
              "  OR detail LIKE ?2 ESCAPE '\\' OR result LIKE ?2 ESCAPE '\\')"
              " AND (?3 = '' OR node_name = ?3 OR node_address = ?3)"
              " AND (?4 = '' OR action = ?4)"
              " ORDER BY unix_ms DESC, id DESC LIMIT ?5");
  if (!s.Ok()) {
    if (error) *error = LastError(db_);
    return out;
  }
  s.Bind(1, query.text);
  s.Bind(2, EscapeLike(query.text));
  s.Bind(3, query.node);
  s.Bind(4, query.action);
  s.Bind(5, qint64(query.limit > 0 ? query.limit : 1000));
  int rc;
  while ((rc = sqlite3_step(s.Get())) == SQLITE_ROW) {
    AuditEntry e;
    e.id = sqlite3_column_int64(s.Get(), 0);
    e.unix_ms = sqlite3_column_int64(s.Get(), 1);
    e.user = s.Text(2);
    e.node_name = s.Text(3);
    e.node_address = s.Text(4);
    e.action = s.Text(5);
    e.detail = s.Text(6);
    e.result = s.Text(7);
    e.ok = sqlite3_column_int64(s.Get(), 8) != 0;
    out.push_back(std::move(e));
  }
  if (rc != SQLITE_DONE && error) *error = LastError(db_);
  return out;
}

QStringList AuditLog::Distinct(const char* column) const {
  QStringList out;
  if (!db_) return out;
  Statement s(db_,
              (QByteArray("SELECT DISTINCT ") + column + " FROM audit ORDER BY 1").constData());
  while (s.Ok() && sqlite3_step(s.Get()) == SQLITE_ROW) out << s.Text(0);
  return out;
}

QStringList AuditLog::Nodes() const { return Distinct("node_name"); }

QStringList AuditLog::Actions() const { return Distinct("action"); }

QString AuditLog::CurrentUser() {
  if (const passwd* pw = getpwuid(getuid()); pw && pw->pw_name)
    return QString::fromLocal8Bit(pw->pw_name);
  const QString user = qEnvironmentVariable("USER");
  return user.isEmpty() ? QStringLiteral("unknown") : user;
}

}  // namespace railyard::ui
