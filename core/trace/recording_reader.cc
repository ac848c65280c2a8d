// SPDX-License-Identifier: Apache-2.0
#include "core/trace/recording_reader.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <string_view>
#include <system_error>
#include <utility>

#include "core/trace/schema.h"
#include "core/trace/sqlite_handle.h"

namespace railyard::trace {
namespace {

// Rows a cursor fetches per query.
constexpr int kCursorBatch = 256;

// The distinct nodes by a loose index scan of snapshots_by_node: one index search per node
// rather than a pass over every snapshot.
constexpr char kNodesSql[] =
    "WITH RECURSIVE nodes(name) AS ("
    " SELECT min(node) FROM snapshots"
    " UNION ALL"
    " SELECT (SELECT min(node) FROM snapshots WHERE node > nodes.name) FROM nodes"
    " WHERE nodes.name IS NOT NULL)"
    " SELECT name FROM nodes WHERE name IS NOT NULL ORDER BY name";

// The same scan, then per node one more search for its latest row at or before ?1.
constexpr char kSeekSql[] =
    "WITH RECURSIVE nodes(name) AS ("
    " SELECT min(node) FROM snapshots"
    " UNION ALL"
    " SELECT (SELECT min(node) FROM snapshots WHERE node > nodes.name) FROM nodes"
    " WHERE nodes.name IS NOT NULL)"
    " SELECT s.rowid, s.node, s.unix_ms, s.sequence, s.telemetry FROM nodes"
    " JOIN snapshots AS s ON s.rowid = ("
    "  SELECT rowid FROM snapshots WHERE node = nodes.name AND unix_ms <= ?1"
    "  ORDER BY unix_ms DESC, sequence DESC, rowid DESC LIMIT 1)"
    " WHERE nodes.name IS NOT NULL ORDER BY s.node";

constexpr char kSpanSql[] =
    "SELECT min(first), max(last) FROM ("
    " SELECT (SELECT min(unix_ms) FROM snapshots) AS first,"
    "  (SELECT max(unix_ms) FROM snapshots) AS last"
    " UNION ALL SELECT (SELECT min(unix_ms) FROM events), (SELECT max(unix_ms) FROM events)"
    " UNION ALL SELECT (SELECT min(unix_ms) FROM workload), (SELECT max(unix_ms) FROM workload))";

constexpr char kCountSql[] = "SELECT count(*) FROM snapshots";

constexpr char kEventsSql[] =
    "SELECT unix_ms, node, kind, detail FROM events WHERE unix_ms >= ?1 AND unix_ms <= ?2"
    " ORDER BY unix_ms, rowid";

// Cursors page by key (keyset pagination): the first batch by time, later batches strictly
// after the last row's full sort key, which ends in the rowid so that no row is seen twice.
constexpr char kSnapshotsFromSql[] =
    "SELECT rowid, node, unix_ms, sequence, telemetry FROM snapshots WHERE unix_ms >= ?1"
    " ORDER BY unix_ms, node, sequence, rowid LIMIT ?2";
constexpr char kSnapshotsAfterSql[] =
    "SELECT rowid, node, unix_ms, sequence, telemetry FROM snapshots"
    " WHERE (unix_ms, node, sequence, rowid) > (?1, ?2, ?3, ?4)"
    " ORDER BY unix_ms, node, sequence, rowid LIMIT ?5";
constexpr char kWorkloadFromSql[] =
    "SELECT rowid, unix_ms, op, key, size FROM workload WHERE unix_ms >= ?1"
    " ORDER BY unix_ms, rowid LIMIT ?2";
constexpr char kWorkloadAfterSql[] =
    "SELECT rowid, unix_ms, op, key, size FROM workload WHERE (unix_ms, rowid) > (?1, ?2)"
    " ORDER BY unix_ms, rowid LIMIT ?3";

// Columns: rowid, node, unix_ms, sequence, telemetry.
void ReadSnapshotRow(const internal::Statement& row, const std::string& path, Snapshot* snapshot) {
  snapshot->node = row.ColumnText(1);
  snapshot->unix_ms = row.ColumnInt64(2);
  snapshot->sequence = static_cast<uint64_t>(row.ColumnInt64(3));
  snapshot->telemetry.Clear();
  snapshot->status = Status::Ok();
  const std::string_view blob = row.ColumnBlob(4);
  const bool parsed = !row.ColumnIsNull(4) && snapshot->telemetry.ParseFromArray(
                                                  blob.data(), static_cast<int>(blob.size()));
  if (!parsed) {
    snapshot->telemetry.Clear();
    snapshot->status = Status::Corruption(
        path + ": snapshot row " + std::to_string(row.ColumnInt64(0)) + " (node '" +
        snapshot->node + "', unix_ms " + std::to_string(snapshot->unix_ms) + ", sequence " +
        std::to_string(snapshot->sequence) + "): " +
        (row.ColumnIsNull(4) ? std::string("telemetry is NULL")
                             : "telemetry of " + std::to_string(blob.size()) +
                                   " bytes does not parse as railyard.admin.Telemetry"));
  }
}

// Columns: rowid, unix_ms, op, key, size.
void ReadWorkloadRow(const internal::Statement& row, const std::string& path, WorkloadOp* op) {
  op->unix_ms = row.ColumnInt64(1);
  op->key = static_cast<uint64_t>(row.ColumnInt64(3));
  op->size = static_cast<uint64_t>(row.ColumnInt64(4));
  op->op = WorkloadOpKind::kGet;
  op->status = Status::Ok();
  const std::string_view name = row.ColumnText(2);
  if (!ParseWorkloadOpName(name, &op->op)) {
    op->status = Status::Corruption(path + ": workload row " + std::to_string(row.ColumnInt64(0)) +
                                    " (unix_ms " + std::to_string(op->unix_ms) + "): unknown op '" +
                                    std::string(name) + "'");
  }
}

}  // namespace

struct RecordingReader::Rep {
  RecordingInfo info;
  // Declared before the statements so that they are finalized first.
  internal::Database db;
  internal::Statement nodes;
  internal::Statement span;
  internal::Statement count;
  internal::Statement events;
  internal::Statement seek;
  internal::Statement snapshots_from;
  internal::Statement snapshots_after;
  internal::Statement workload_from;
  internal::Statement workload_after;
};

Status RecordingReader::Open(const std::string& path, std::unique_ptr<RecordingReader>* reader) {
  reader->reset();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return Status::NotFound(path + ": no such recording file");
  }
  // A writer keeps a -wal beside the file while it is open, and its last close checkpoints and
  // deletes it. Without one, nobody is writing: open immutable, which takes no locks and creates
  // no -wal/-shm files (a read-only connection in WAL mode would create both and leave them). With
  // one (a writer at work, or one that crashed), share the WAL to follow the writer or recover.
  const bool being_written = std::filesystem::exists(path + "-wal", ec);
  auto rep = std::make_unique<Rep>();
  if (Status status = rep->db.Open(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
                                   being_written ? "" : "mode=ro&immutable=1");
      !status.ok()) {
    return Status::IOError("cannot open the recording: " + status.message());
  }
  // Readers wait only while a crashed writer's WAL is recovered.
  sqlite3_busy_timeout(rep->db.get(), 5000);
  bool empty = false;
  if (Status status = internal::InspectRecording(&rep->db, &empty, &rep->info); !status.ok()) {
    return status;
  }
  if (empty) return Status::InvalidArgument(path + ": an empty database, not a recording");

  const std::pair<internal::Statement*, const char*> statements[] = {
      {&rep->nodes, kNodesSql},
      {&rep->span, kSpanSql},
      {&rep->count, kCountSql},
      {&rep->events, kEventsSql},
      {&rep->seek, kSeekSql},
      {&rep->snapshots_from, kSnapshotsFromSql},
      {&rep->snapshots_after, kSnapshotsAfterSql},
      {&rep->workload_from, kWorkloadFromSql},
      {&rep->workload_after, kWorkloadAfterSql},
  };
  for (const auto& [statement, sql] : statements) {
    if (Status status = statement->Prepare(&rep->db, sql); !status.ok()) {
      // A recording's meta with tables missing: damaged, not merely foreign.
      return Status::Corruption("recording schema is incomplete: " + status.message());
    }
  }
  reader->reset(new RecordingReader(std::move(rep)));
  return Status::Ok();
}

RecordingReader::RecordingReader(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}

RecordingReader::~RecordingReader() = default;

const std::string& RecordingReader::path() const { return rep_->db.path(); }

const RecordingInfo& RecordingReader::info() const { return rep_->info; }

Status RecordingReader::Nodes(std::vector<std::string>* nodes) {
  nodes->clear();
  internal::Statement& select = rep_->nodes;
  internal::ScopedReset reset(&select);
  bool row = false;
  Status status;
  while ((status = select.Step(&row)).ok() && row) nodes->emplace_back(select.ColumnText(0));
  return status;
}

Status RecordingReader::NodesInOrder(std::vector<std::string>* nodes) {
  if (Status status = Nodes(nodes); !status.ok()) return status;
  internal::Statement select;
  if (Status status = select.Prepare(&rep_->db, "SELECT value FROM meta WHERE key = 'node_order'");
      !status.ok()) {
    return status;
  }
  bool row = false;
  if (Status status = select.Step(&row); !status.ok() || !row) return status;
  std::map<std::string_view, size_t> rank;  // Listed names by their place in the list.
  const std::string_view listed = select.ColumnText(0);
  for (size_t begin = 0; begin <= listed.size();) {
    const size_t end = std::min(listed.find('\n', begin), listed.size());
    rank.emplace(listed.substr(begin, end - begin), rank.size());
    begin = end + 1;
  }
  // Ascending already, so a stable sort keeps the unlisted ones that way, after the listed.
  std::stable_sort(nodes->begin(), nodes->end(), [&](const std::string& a, const std::string& b) {
    const auto ra = rank.find(a), rb = rank.find(b);
    const size_t ka = ra == rank.end() ? SIZE_MAX : ra->second;
    const size_t kb = rb == rank.end() ? SIZE_MAX : rb->second;
    return ka < kb;
  });
  return Status::Ok();
}

Status RecordingReader::Span(TimeSpan* span) {
  *span = TimeSpan();
  internal::Statement& select = rep_->span;
  internal::ScopedReset reset(&select);
  bool row = false;
  if (Status status = select.Step(&row); !status.ok()) return status;
  if (!row || select.ColumnIsNull(0)) return Status::NotFound(path() + ": nothing recorded");
  span->first_unix_ms = select.ColumnInt64(0);
  span->last_unix_ms = select.ColumnInt64(1);
  return Status::Ok();
}

Status RecordingReader::SnapshotCount(uint64_t* count) {
  *count = 0;
  internal::Statement& select = rep_->count;
  internal::ScopedReset reset(&select);
  bool row = false;
  if (Status status = select.Step(&row); !status.ok()) return status;
  if (row) *count = static_cast<uint64_t>(select.ColumnInt64(0));
  return Status::Ok();
}

Status RecordingReader::Events(std::vector<Event>* events) {
  return EventsBetween(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                       events);
}

Status RecordingReader::EventsBetween(int64_t from_unix_ms, int64_t to_unix_ms,
                                      std::vector<Event>* events) {
  events->clear();
  internal::Statement& select = rep_->events;
  internal::ScopedReset reset(&select);
  select.BindInt64(1, from_unix_ms);
  select.BindInt64(2, to_unix_ms);
  bool row = false;
  Status status;
  while ((status = select.Step(&row)).ok() && row) {
    Event& event = events->emplace_back();
    event.unix_ms = select.ColumnInt64(0);
    event.node = select.ColumnText(1);
    event.kind = select.ColumnText(2);
    event.detail = select.ColumnText(3);
  }
  return status;
}

Status RecordingReader::Seek(int64_t unix_ms, std::vector<Snapshot>* snapshots) {
  snapshots->clear();
  internal::Statement& select = rep_->seek;
  internal::ScopedReset reset(&select);
  select.BindInt64(1, unix_ms);
  bool row = false;
  Status status;
  while ((status = select.Step(&row)).ok() && row) {
    ReadSnapshotRow(select, path(), &snapshots->emplace_back());
  }
  if (!status.ok()) snapshots->clear();
  return status;
}

// --- SnapshotCursor ------------------------------------------------------------------------------

struct SnapshotCursor::Rep {
  RecordingReader::Rep* reader = nullptr;
  int64_t from_unix_ms = 0;
  // The sort key of the last row fetched, once a batch has been.
  bool fetched = false;
  int64_t last_rowid = 0;
  std::string last_node;
  int64_t last_unix_ms = 0;
  int64_t last_sequence = 0;
  std::vector<Snapshot> batch;
  size_t position = 0;
  Status status;
};

std::unique_ptr<SnapshotCursor> RecordingReader::NewSnapshotCursor(int64_t from_unix_ms) {
  auto rep = std::make_unique<SnapshotCursor::Rep>();
  rep->reader = rep_.get();
  rep->from_unix_ms = from_unix_ms;
  std::unique_ptr<SnapshotCursor> cursor(new SnapshotCursor(std::move(rep)));
  cursor->Fill();
  return cursor;
}

SnapshotCursor::SnapshotCursor(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}

SnapshotCursor::~SnapshotCursor() = default;

bool SnapshotCursor::Valid() const { return rep_->position < rep_->batch.size(); }

const Snapshot& SnapshotCursor::snapshot() const { return rep_->batch[rep_->position]; }

const Status& SnapshotCursor::status() const { return rep_->status; }

void SnapshotCursor::Next() {
  if (++rep_->position == rep_->batch.size()) Fill();
}

void SnapshotCursor::Fill() {
  rep_->batch.clear();
  rep_->position = 0;
  RecordingReader::Rep& reader = *rep_->reader;
  internal::Statement& select = rep_->fetched ? reader.snapshots_after : reader.snapshots_from;
  internal::ScopedReset reset(&select);
  if (rep_->fetched) {
    select.BindInt64(1, rep_->last_unix_ms);
    select.BindText(2, rep_->last_node);
    select.BindInt64(3, rep_->last_sequence);
    select.BindInt64(4, rep_->last_rowid);
    select.BindInt64(5, kCursorBatch);
  } else {
    select.BindInt64(1, rep_->from_unix_ms);
    select.BindInt64(2, kCursorBatch);
  }
  bool row = false;
  Status status;
  while ((status = select.Step(&row)).ok() && row) {
    ReadSnapshotRow(select, reader.db.path(), &rep_->batch.emplace_back());
    rep_->last_rowid = select.ColumnInt64(0);
    rep_->last_unix_ms = select.ColumnInt64(2);
    rep_->last_sequence = select.ColumnInt64(3);
  }
  if (!status.ok()) {
    rep_->batch.clear();
    rep_->status = status;
    return;
  }
  if (!rep_->batch.empty()) {
    rep_->fetched = true;
    rep_->last_node = rep_->batch.back().node;
  }
}

// --- WorkloadCursor ------------------------------------------------------------------------------

struct WorkloadCursor::Rep {
  RecordingReader::Rep* reader = nullptr;
  int64_t from_unix_ms = 0;
  bool fetched = false;
  int64_t last_rowid = 0;
  int64_t last_unix_ms = 0;
  std::vector<WorkloadOp> batch;
  size_t position = 0;
  Status status;
};

std::unique_ptr<WorkloadCursor> RecordingReader::NewWorkloadCursor(int64_t from_unix_ms) {
  auto rep = std::make_unique<WorkloadCursor::Rep>();
  rep->reader = rep_.get();
  rep->from_unix_ms = from_unix_ms;
  std::unique_ptr<WorkloadCursor> cursor(new WorkloadCursor(std::move(rep)));
  cursor->Fill();
  return cursor;
}

WorkloadCursor::WorkloadCursor(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}

WorkloadCursor::~WorkloadCursor() = default;

bool WorkloadCursor::Valid() const { return rep_->position < rep_->batch.size(); }

const WorkloadOp& WorkloadCursor::op() const { return rep_->batch[rep_->position]; }

const Status& WorkloadCursor::status() const { return rep_->status; }

void WorkloadCursor::Next() {
  if (++rep_->position == rep_->batch.size()) Fill();
}

void WorkloadCursor::Fill() {
  rep_->batch.clear();
  rep_->position = 0;
  RecordingReader::Rep& reader = *rep_->reader;
  internal::Statement& select = rep_->fetched ? reader.workload_after : reader.workload_from;
  internal::ScopedReset reset(&select);
  if (rep_->fetched) {
    select.BindInt64(1, rep_->last_unix_ms);
    select.BindInt64(2, rep_->last_rowid);
    select.BindInt64(3, kCursorBatch);
  } else {
    select.BindInt64(1, rep_->from_unix_ms);
    select.BindInt64(2, kCursorBatch);
  }
  bool row = false;
  Status status;
  while ((status = select.Step(&row)).ok() && row) {
    ReadWorkloadRow(select, reader.db.path(), &rep_->batch.emplace_back());
    rep_->last_rowid = select.ColumnInt64(0);
    rep_->last_unix_ms = select.ColumnInt64(1);
  }
  if (!status.ok()) {
    rep_->batch.clear();
    rep_->status = status;
    return;
  }
  rep_->fetched = rep_->fetched || !rep_->batch.empty();
}

}  // namespace railyard::trace
