// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QVector>
#include <cstdint>

#include "railyard/alerts.pb.h"

namespace railyard::ui {

// A change a recording shows between a node's consecutive snapshots: "restart" (its sequence
// went back: a new process), "lame duck" or "lame duck left" (its state), named as
// ThroughputEvent names them; and, given alert rules, an alert firing or resolving ("<rule>
// firing", "<rule> resolved", as the charts' marks name them).
struct RecordingStateChange {
  qint64 unix_ms = 0;  // The first snapshot that showed it.
  QString node;
  QString kind;
};

// What the scan evaluates the alert rules with: the console's rules and stale allowance.
struct RecordingAlertScan {
  alerts::Rules rules;
  qint64 stale_after_ms = 5000;
};

// Reads the recording at `path` in playback order, at most `max_snapshots` snapshots, and returns
// the changes in time order. `*complete` (if given) says whether the whole recording was read.
// With `alerts`, the rules are evaluated at each snapshot's time, a node not answering from its
// stale allowance on through a silence (to the recording's end too), as the Alerts tab evaluates
// them while the recording plays, frame by frame: the same alerts, within a frame of each other.
// Opens its own reader, so it may run on any thread; an unreadable file gives no changes.
QVector<RecordingStateChange> ScanRecordingStateChanges(const QString& path, uint64_t max_snapshots,
                                                        bool* complete = nullptr,
                                                        const RecordingAlertScan* alerts = nullptr);

}  // namespace railyard::ui
