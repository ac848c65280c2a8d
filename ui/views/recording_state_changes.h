// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QVector>
#include <cstdint>

namespace railyard::ui {

// A change a recording shows between a node's consecutive snapshots: "restart" (its sequence
// went back: a new process), "lame duck" or "lame duck left" (its state), named as
// ThroughputEvent names them.
struct RecordingStateChange {
  qint64 unix_ms = 0;  // The first snapshot that showed it.
  QString node;
  QString kind;
};

// Reads the recording at `path` in playback order, at most `max_snapshots` snapshots, and returns
// the changes in time order. `*complete` (if given) says whether the whole recording was read.
// Opens its own reader, so it may run on any thread; an unreadable file gives no changes.
QVector<RecordingStateChange> ScanRecordingStateChanges(const QString& path, uint64_t max_snapshots,
                                                        bool* complete = nullptr);

}  // namespace railyard::ui
