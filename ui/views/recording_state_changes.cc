// SPDX-License-Identifier: Apache-2.0
#include "ui/views/recording_state_changes.h"

#include <map>
#include <memory>
#include <string>

#include "core/trace/recording_reader.h"
#include "ui/models/throughput_model.h"

namespace railyard::ui {

QVector<RecordingStateChange> ScanRecordingStateChanges(const QString& path, uint64_t max_snapshots,
                                                        bool* complete) {
  QVector<RecordingStateChange> changes;
  if (complete) *complete = false;
  std::unique_ptr<trace::RecordingReader> reader;
  if (!trace::RecordingReader::Open(path.toStdString(), &reader).ok()) return changes;
  struct Last {
    uint64_t sequence = 0;
    bool lame = false;
  };
  std::map<std::string, Last> last;  // Per node.
  uint64_t read = 0;
  auto cursor = reader->NewSnapshotCursor(INT64_MIN);
  for (; cursor->Valid() && read < max_snapshots; cursor->Next(), ++read) {
    const trace::Snapshot& s = cursor->snapshot();
    if (!s.status.ok()) continue;
    const bool lame = s.telemetry.state() == admin::NODE_LAME_DUCK;
    const auto [it, first] = last.try_emplace(s.node, Last{s.sequence, lame});
    if (first) continue;
    const QString node = QString::fromStdString(s.node);
    // A process counts its snapshots from 1: a lower count is a new process.
    if (s.sequence < it->second.sequence) {
      changes.push_back({s.unix_ms, node, ThroughputEvent::kRestart});
    }
    if (lame != it->second.lame) {
      changes.push_back(
          {s.unix_ms, node, lame ? ThroughputEvent::kLameDuck : ThroughputEvent::kLameDuckLeft});
    }
    it->second = Last{s.sequence, lame};
  }
  if (complete) *complete = cursor->status().ok() && !cursor->Valid();
  return changes;
}

}  // namespace railyard::ui
