// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/trace/recording.h"
#include "core/trace/status.h"

namespace railyard::trace {

class SnapshotCursor;
class WorkloadCursor;

// Reads a recording (see core/trace/recording.h for the file's schema).
//
// A reader sees every row committed before each call; a recording that is still being written
// grows between calls. Rows whose contents do not parse are returned with a Corruption status of
// their own (Snapshot::status, WorkloadOp::status) and never stop a read; a method's own Status
// is for failures of the file or of SQLite.
//
// Thread safety: a reader and its cursors are used by one thread at a time; open one reader per
// thread. Any number of readers may be open on a file, also while a RecordingWriter appends to
// it (when the writer was there before the reader: see Open).
class RecordingReader {
 public:
  // Opens the recording at `path` read-only. A file with no "-wal" beside it is not being
  // written: it is opened immutable and leaves no -wal/-shm files, and a writer that starts on it
  // later is not followed (its rows may not be seen). Errors: NotFound if there is no such file;
  // InvalidArgument if it is not a SQLite database or not a recording; NotSupported if it is a
  // recording of a newer format version.
  static Status Open(const std::string& path, std::unique_ptr<RecordingReader>* reader);

  ~RecordingReader();
  RecordingReader(const RecordingReader&) = delete;
  RecordingReader& operator=(const RecordingReader&) = delete;

  const std::string& path() const;
  const RecordingInfo& info() const;

  // The distinct node names with snapshots, in ascending order.
  Status Nodes(std::vector<std::string>* nodes);
  // The same names in the order the recorder showed them (its meta 'node_order'), followed by
  // any it did not list, in ascending order.
  Status NodesInOrder(std::vector<std::string>* nodes);
  // First and last time of anything recorded. NotFound if nothing is.
  Status Span(TimeSpan* span);
  Status SnapshotCount(uint64_t* count);
  // Every event, in time order (ties in the order they were appended).
  Status Events(std::vector<Event>* events);
  // The events with from_unix_ms <= unix_ms <= to_unix_ms, in time order.
  Status EventsBetween(int64_t from_unix_ms, int64_t to_unix_ms, std::vector<Event>* events);

  // For each node, its latest snapshot at or before `unix_ms` (largest time, then largest
  // sequence), ordered by node. Nodes whose first snapshot is later are absent; a node that
  // stopped reporting keeps its last snapshot, so compare Snapshot::unix_ms to tell it is stale.
  Status Seek(int64_t unix_ms, std::vector<Snapshot>* snapshots);

  // A cursor over the snapshots with unix_ms >= from_unix_ms, in playback order: by time, ties by
  // node, then sequence. REQUIRES: the reader outlives the cursor.
  std::unique_ptr<SnapshotCursor> NewSnapshotCursor(int64_t from_unix_ms);
  // A cursor over the workload ops with unix_ms >= from_unix_ms, by time (ties in the order they
  // were appended). REQUIRES: the reader outlives the cursor.
  std::unique_ptr<WorkloadCursor> NewWorkloadCursor(int64_t from_unix_ms);

 private:
  friend class SnapshotCursor;
  friend class WorkloadCursor;
  struct Rep;
  explicit RecordingReader(std::unique_ptr<Rep> rep);

  std::unique_ptr<Rep> rep_;
};

// A forward cursor. It fetches rows in batches and holds no read transaction between them, so a
// long playback never keeps a writer's WAL from being checkpointed; rows committed while it runs
// are seen if they sort after its position.
//
//   for (auto c = reader->NewSnapshotCursor(t); c->Valid(); c->Next()) Use(c->snapshot());
//   if (!c->status().ok()) ...
class SnapshotCursor {
 public:
  ~SnapshotCursor();
  SnapshotCursor(const SnapshotCursor&) = delete;
  SnapshotCursor& operator=(const SnapshotCursor&) = delete;

  // False at the end, or after a failure (see status()).
  bool Valid() const;
  // REQUIRES: Valid().
  void Next();
  // REQUIRES: Valid(). The reference is valid until the next call of Next().
  const Snapshot& snapshot() const;
  // Ok unless reading failed; a row that does not parse is not a failure (Snapshot::status).
  const Status& status() const;

 private:
  friend class RecordingReader;
  struct Rep;
  explicit SnapshotCursor(std::unique_ptr<Rep> rep);
  void Fill();

  std::unique_ptr<Rep> rep_;
};

// Like SnapshotCursor, over the recorded workload.
class WorkloadCursor {
 public:
  ~WorkloadCursor();
  WorkloadCursor(const WorkloadCursor&) = delete;
  WorkloadCursor& operator=(const WorkloadCursor&) = delete;

  bool Valid() const;
  // REQUIRES: Valid().
  void Next();
  // REQUIRES: Valid(). The reference is valid until the next call of Next().
  const WorkloadOp& op() const;
  const Status& status() const;

 private:
  friend class RecordingReader;
  struct Rep;
  explicit WorkloadCursor(std::unique_ptr<Rep> rep);
  void Fill();

  std::unique_ptr<Rep> rep_;
};

}  // namespace railyard::trace
