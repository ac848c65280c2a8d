// SPDX-License-Identifier: Apache-2.0
#include "core/trace/recording_writer.h"

#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "core/trace/schema.h"
#include "core/trace/sqlite_handle.h"

namespace railyard::trace {

struct RecordingWriter::Rep {
  WriterOptions options;
  RecordingInfo info;
  // Declared before the statements so that they are finalized first.
  internal::Database db;
  internal::Statement begin;
  internal::Statement commit;
  internal::Statement insert_snapshot;
  internal::Statement insert_event;
  internal::Statement insert_workload;
  internal::Statement set_node_order;
  internal::Statement delete_snapshots_before;
  // What Create prepared, for Close to finalize: one list, so no statement is left open (SQLite
  // refuses to close a database with one).
  std::vector<internal::Statement*> prepared;
  std::string blob;  // Reused serialization buffer.
  size_t pending_rows = 0;
  std::chrono::steady_clock::time_point transaction_start;
  bool closed = false;
};

namespace {

// Creates the schema inside a write transaction unless someone else already has.
Status InitializeIfEmpty(internal::Database* db, const WriterOptions& options,
                         RecordingInfo* info) {
  if (Status status = db->Exec("BEGIN IMMEDIATE"); !status.ok()) return status;
  bool empty = false;
  Status status = internal::InspectRecording(db, &empty, info);
  if (status.ok() && empty) {
    info->format_version = kFormatVersion;
    info->created_unix_ms = internal::NowUnixMs();
    info->writer = options.writer;
    status = internal::CreateSchema(db, options.writer, info->created_unix_ms);
  }
  if (status.ok()) return db->Exec("COMMIT");
  db->Exec("ROLLBACK");
  return status;
}

}  // namespace

Status RecordingWriter::Create(const std::string& path, const WriterOptions& options,
                               std::unique_ptr<RecordingWriter>* writer) {
  writer->reset();
  std::error_code ec;
  if (options.error_if_exists && std::filesystem::exists(path, ec)) {
    return Status::InvalidArgument(path + ": exists (error_if_exists is set)");
  }
  auto rep = std::make_unique<Rep>();
  rep->options = options;
  internal::Database& db = rep->db;
  if (Status status =
          db.Open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX);
      !status.ok()) {
    return Status::IOError("cannot create or open the recording: " + status.message());
  }
  sqlite3_busy_timeout(db.get(), static_cast<int>(options.busy_timeout.count()));

  // Identify the file before changing anything, so that a foreign database stays untouched.
  bool empty = false;
  if (Status status = internal::InspectRecording(&db, &empty, &rep->info); !status.ok()) {
    return status;
  }
  {
    internal::Statement wal;
    Status status = wal.Prepare(&db, "PRAGMA journal_mode=WAL");
    bool row = false;
    if (status.ok()) status = wal.Step(&row);
    if (!status.ok()) return status;
    if (!row || wal.ColumnText(0) != "wal") {
      return Status::IOError(path + ": cannot switch the recording to WAL mode (journal mode is " +
                             std::string(row ? wal.ColumnText(0) : "unknown") + ")");
    }
  }
  if (Status status = db.Exec("PRAGMA synchronous=NORMAL"); !status.ok()) return status;
  if (empty) {
    if (Status status = InitializeIfEmpty(&db, options, &rep->info); !status.ok()) return status;
  }

  const std::pair<internal::Statement*, const char*> statements[] = {
      {&rep->begin, "BEGIN IMMEDIATE"},
      {&rep->commit, "COMMIT"},
      {&rep->insert_snapshot,
       "INSERT INTO snapshots(node, unix_ms, sequence, telemetry) VALUES(?1, ?2, ?3, ?4)"},
      {&rep->insert_event,
       "INSERT INTO events(unix_ms, node, kind, detail) VALUES(?1, ?2, ?3, ?4)"},
      {&rep->insert_workload,
       "INSERT INTO workload(unix_ms, op, key, size) VALUES(?1, ?2, ?3, ?4)"},
      {&rep->set_node_order, "INSERT OR REPLACE INTO meta(key, value) VALUES('node_order', ?1)"},
      {&rep->delete_snapshots_before, "DELETE FROM snapshots WHERE unix_ms < ?1"},
  };
  for (const auto& [statement, sql] : statements) {
    if (Status status = statement->Prepare(&db, sql); !status.ok()) return status;
    rep->prepared.push_back(statement);
  }
  writer->reset(new RecordingWriter(std::move(rep)));
  return Status::Ok();
}

RecordingWriter::RecordingWriter(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}

RecordingWriter::~RecordingWriter() { Close(); }

const std::string& RecordingWriter::path() const { return rep_->db.path(); }

const RecordingInfo& RecordingWriter::info() const { return rep_->info; }

Status RecordingWriter::BeginIfNeeded() {
  if (rep_->closed) return Status::InvalidArgument(path() + ": the writer is closed");
  // SQLite may have rolled back on its own after an error, so ask it rather than keep a flag.
  if (!sqlite3_get_autocommit(rep_->db.get())) return Status::Ok();
  if (Status status = rep_->begin.Run(); !status.ok()) return status;
  rep_->pending_rows = 0;
  rep_->transaction_start = std::chrono::steady_clock::now();
  return Status::Ok();
}

Status RecordingWriter::RowAppended() {
  ++rep_->pending_rows;
  if (rep_->pending_rows >= rep_->options.commit_every_rows ||
      std::chrono::steady_clock::now() - rep_->transaction_start >= rep_->options.commit_every) {
    return Commit();
  }
  return Status::Ok();
}

Status RecordingWriter::AppendSnapshot(std::string_view node, const admin::Telemetry& telemetry) {
  if (Status status = BeginIfNeeded(); !status.ok()) return status;
  rep_->blob.clear();
  if (!telemetry.SerializeToString(&rep_->blob)) {
    return Status::InvalidArgument(path() + ": telemetry of node '" + std::string(node) +
                                   "' cannot be serialized");
  }
  internal::Statement& insert = rep_->insert_snapshot;
  insert.BindText(1, node);
  insert.BindInt64(2, telemetry.unix_ms());
  insert.BindInt64(3, static_cast<int64_t>(telemetry.sequence()));
  insert.BindBlob(4, rep_->blob);
  if (Status status = insert.Run(); !status.ok()) return status;
  return RowAppended();
}

Status RecordingWriter::AppendEvent(int64_t unix_ms, std::string_view node, std::string_view kind,
                                    std::string_view detail) {
  if (Status status = BeginIfNeeded(); !status.ok()) return status;
  internal::Statement& insert = rep_->insert_event;
  insert.BindInt64(1, unix_ms);
  insert.BindText(2, node);
  insert.BindText(3, kind);
  insert.BindText(4, detail);
  if (Status status = insert.Run(); !status.ok()) return status;
  return RowAppended();
}

Status RecordingWriter::AppendWorkload(int64_t unix_ms, WorkloadOpKind op, uint64_t key,
                                       uint64_t size) {
  if (Status status = BeginIfNeeded(); !status.ok()) return status;
  internal::Statement& insert = rep_->insert_workload;
  insert.BindInt64(1, unix_ms);
  insert.BindText(2, WorkloadOpName(op));
  insert.BindInt64(3, static_cast<int64_t>(key));
  insert.BindInt64(4, static_cast<int64_t>(size));
  if (Status status = insert.Run(); !status.ok()) return status;
  return RowAppended();
}

Status RecordingWriter::SetNodeOrder(const std::vector<std::string>& names) {
  std::string value;
  for (const std::string& name : names) {
    if (name.empty() || name.find_first_of("\r\n") != std::string::npos) {
      return Status::InvalidArgument(
          path() + ": a node name in the node order is empty or holds a line break");
    }
    if (!value.empty()) value += '\n';
    value += name;
  }
  if (Status status = BeginIfNeeded(); !status.ok()) return status;
  rep_->set_node_order.BindText(1, value);
  if (Status status = rep_->set_node_order.Run(); !status.ok()) return status;
  return RowAppended();
}

Status RecordingWriter::DeleteSnapshotsBefore(int64_t unix_ms) {
  if (Status status = BeginIfNeeded(); !status.ok()) return status;
  rep_->delete_snapshots_before.BindInt64(1, unix_ms);
  if (Status status = rep_->delete_snapshots_before.Run(); !status.ok()) return status;
  return RowAppended();
}

Status RecordingWriter::Commit() {
  if (rep_->closed) return Status::InvalidArgument(path() + ": the writer is closed");
  if (sqlite3_get_autocommit(rep_->db.get())) return Status::Ok();
  if (Status status = rep_->commit.Run(); !status.ok()) return status;
  rep_->pending_rows = 0;
  return Status::Ok();
}

Status RecordingWriter::Close() {
  if (rep_->closed) return Status::Ok();
  Status status = Commit();
  rep_->closed = true;
  for (internal::Statement* statement : rep_->prepared) statement->Finalize();
  // Closing the last connection checkpoints the WAL into the database file and removes it.
  Status close_status = rep_->db.Close();
  return status.ok() ? close_status : status;
}

}  // namespace railyard::trace
