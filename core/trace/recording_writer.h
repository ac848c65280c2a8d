// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace/recording.h"
#include "core/trace/status.h"
#include "railyard/admin.pb.h"

namespace railyard::trace {

struct WriterOptions {
  // Appends are batched in a transaction, committed once it holds this many rows or once its
  // first row is `commit_every` old (checked on each append), whichever comes first. A killed
  // writer loses at most the rows of the open transaction.
  size_t commit_every_rows = 500;
  std::chrono::milliseconds commit_every{1000};
  // Fail with InvalidArgument if the file exists, instead of appending to it.
  bool error_if_exists = false;
  // Stored in the meta table when the recording is created, e.g. "railyard-node 0.1.0".
  std::string writer = "railyard";
  // The longest wait for a lock that another connection holds.
  std::chrono::milliseconds busy_timeout{5000};
};

// Writes a recording (see core/trace/recording.h for the file's schema).
//
// Durability: the file is in WAL mode with synchronous=NORMAL; each commit is atomic, and a
// process killed at any moment leaves a recording that opens cleanly and holds every committed
// row. Commits happen on the appends themselves (see WriterOptions): a writer that goes quiet
// keeps its last rows uncommitted until the next append, Commit() or Close().
//
// Thread safety: a writer is used by one thread (or externally synchronized). Any number of
// RecordingReaders, in this or other processes, may read the file while it is written; they see
// committed rows only. At most one writer per file at a time.
class RecordingWriter {
 public:
  // Opens `path` for appending: creates a new recording if the file does not exist (or is
  // empty), else appends to the recording there. Errors: IOError if the file cannot be created or
  // opened; InvalidArgument if it exists and is not a recording; NotSupported if it is a
  // recording of a newer format version.
  static Status Create(const std::string& path, const WriterOptions& options,
                       std::unique_ptr<RecordingWriter>* writer);

  // Close()s, ignoring its status.
  ~RecordingWriter();
  RecordingWriter(const RecordingWriter&) = delete;
  RecordingWriter& operator=(const RecordingWriter&) = delete;

  // Records `telemetry` as a snapshot of `node`, at telemetry.unix_ms() with
  // telemetry.sequence().
  Status AppendSnapshot(std::string_view node, const admin::Telemetry& telemetry);
  // Records a command seen (kind: one of kEvent* in recording.h, or a console action).
  Status AppendEvent(int64_t unix_ms, std::string_view node, std::string_view kind,
                     std::string_view detail);
  // Records one operation of a load generator's workload.
  Status AppendWorkload(int64_t unix_ms, WorkloadOpKind op, uint64_t key, uint64_t size);
  // Records the order in which the recorder shows its nodes (replacing an earlier one), which a
  // replay keeps. InvalidArgument if a name is empty or holds a line break.
  Status SetNodeOrder(const std::vector<std::string>& names);

  // Deletes the snapshots taken before `unix_ms`, in the open transaction: a recording that keeps
  // only a window of time (a node's flight recorder). The file does not shrink; SQLite reuses the
  // pages.
  Status DeleteSnapshotsBefore(int64_t unix_ms);

  // Commits the rows appended so far, if any.
  Status Commit();
  // Commits and closes the file. Idempotent; afterwards every other call fails.
  Status Close();

  const std::string& path() const;
  // What the meta table says (format version, creation time, what created it).
  const RecordingInfo& info() const;

 private:
  struct Rep;
  explicit RecordingWriter(std::unique_ptr<Rep> rep);

  Status BeginIfNeeded();
  Status RowAppended();

  std::unique_ptr<Rep> rep_;
};

}  // namespace railyard::trace
