// SPDX-License-Identifier: Apache-2.0
#pragma once

// A recording is one SQLite file holding what a cluster did: telemetry snapshots of its
// processes, the commands operators issued, and a load generator's workload. The recorder, the
// simulator and the load generator write it (RecordingWriter); the console's replay source and
// railyardctl read it (RecordingReader).
//
// Schema, format version 1 (stable: a change that old readers would misread bumps the version;
// readers refuse versions newer than kFormatVersion):
//
//   CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
//     -- 'format' = 'railyard-recording', 'format_version' = '1', 'created_unix_ms' (decimal),
//     -- 'writer' (what created the file, e.g. "railyard-node 0.1.0"); optional 'node_order':
//     -- the node names in the order the recorder showed them, one per line, which a replay
//     -- keeps (RecordingReader::NodesInOrder), so that a node has its live colour and row.
//   CREATE TABLE snapshots(node TEXT NOT NULL, unix_ms INTEGER NOT NULL,
//                          sequence INTEGER NOT NULL, telemetry BLOB NOT NULL);
//     -- telemetry: a serialized railyard.admin.Telemetry; unix_ms and sequence are copied from it.
//   CREATE INDEX snapshots_by_time ON snapshots(unix_ms, node, sequence);  -- playback order
//   CREATE INDEX snapshots_by_node ON snapshots(node, unix_ms, sequence);  -- Seek, Nodes
//   CREATE TABLE events(unix_ms INTEGER NOT NULL, node TEXT NOT NULL, kind TEXT NOT NULL,
//                       detail TEXT NOT NULL);
//   CREATE INDEX events_by_time ON events(unix_ms);
//   CREATE TABLE workload(unix_ms INTEGER NOT NULL, op TEXT NOT NULL, key INTEGER NOT NULL,
//                         size INTEGER NOT NULL);
//     -- op: 'get', 'put' or 'delete'; key: the document id.
//   CREATE INDEX workload_by_time ON workload(unix_ms);
//
// Unsigned 64-bit values (sequence, key, size) are stored as the signed integer with the same
// bits. Rows with equal times keep their insertion order (rowid). Writers put the file in WAL
// mode (and write with synchronous=NORMAL), so readers and one writer may use it at once.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/trace/status.h"
#include "railyard/admin.pb.h"

namespace railyard::trace {

inline constexpr std::string_view kFormatName = "railyard-recording";
inline constexpr int kFormatVersion = 1;

// What the meta table says about a recording.
struct RecordingInfo {
  int format_version = 0;
  int64_t created_unix_ms = 0;
  std::string writer;
};

// One telemetry snapshot of one process.
struct Snapshot {
  std::string node;
  int64_t unix_ms = 0;
  uint64_t sequence = 0;
  admin::Telemetry telemetry;
  // Ok, or Corruption (naming the file and the row) if the stored telemetry does not parse; then
  // `telemetry` is empty while node, unix_ms and sequence are still the row's.
  Status status;
};

// Kinds of commands seen, as the console and railyardctl record them. Other kinds (the console's
// own actions) are free-form lowercase words.
inline constexpr std::string_view kEventDrain = "drain";
inline constexpr std::string_view kEventUndrain = "undrain";
inline constexpr std::string_view kEventCompact = "compact";
inline constexpr std::string_view kEventFlush = "flush";
// Not a command: the recorder could not get `node`'s telemetry (refused, timed out, ...), written
// once per outage with the reason as the detail. A replay shows the node unreachable from then
// until its next snapshot, as the live console showed it.
inline constexpr std::string_view kEventUnreachable = "unreachable";

// The detail of an event for an admin command that a node's telemetry reported: who ran it, its
// arguments if any, and the node's answer: "WHO[ indexes 1,2] -> RESULT". The console's recorder
// and `railyardctl record` both write it this way.
std::string NodeCommandEventDetail(const admin::CommandEvent& command);

// A command seen at `unix_ms`, addressed to `node`.
struct Event {
  int64_t unix_ms = 0;
  std::string node;
  std::string kind;
  std::string detail;
};

enum class WorkloadOpKind { kGet, kPut, kDelete };

// "get", "put", "delete".
std::string_view WorkloadOpName(WorkloadOpKind op);
// False if `name` is none of the above.
bool ParseWorkloadOpName(std::string_view name, WorkloadOpKind* op);

// One operation a load generator issued.
struct WorkloadOp {
  int64_t unix_ms = 0;
  WorkloadOpKind op = WorkloadOpKind::kGet;
  uint64_t key = 0;
  uint64_t size = 0;  // Value size in bytes, as the load generator recorded it.
  // Ok, or Corruption (naming the file and the row) if the stored op is not a known name.
  Status status;
};

// First and last time of anything recorded (snapshots, events and workload), inclusive.
struct TimeSpan {
  int64_t first_unix_ms = 0;
  int64_t last_unix_ms = 0;
};

}  // namespace railyard::trace
