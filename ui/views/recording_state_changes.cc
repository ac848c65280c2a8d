// SPDX-License-Identifier: Apache-2.0
#include "ui/views/recording_state_changes.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "core/cluster/alert_evaluator.h"
#include "core/trace/recording_reader.h"
#include "ui/models/throughput_model.h"

namespace railyard::ui {

QVector<RecordingStateChange> ScanRecordingStateChanges(const QString& path, uint64_t max_snapshots,
                                                        bool* complete,
                                                        const RecordingAlertScan* alerts) {
  QVector<RecordingStateChange> changes;
  if (complete) *complete = false;
  std::unique_ptr<trace::RecordingReader> reader;
  if (!trace::RecordingReader::Open(path.toStdString(), &reader).ok()) return changes;
  struct Last {
    uint64_t sequence = 0;
    bool lame = false;
    int64_t unix_ms = 0;
  };
  std::map<std::string, Last> last;  // Per node.
  std::optional<cluster::AlertEvaluator> evaluator;
  if (alerts) evaluator.emplace(alerts->rules);
  std::vector<cluster::AlertTransition> alert_changes;
  int64_t newest = INT64_MIN;
  uint64_t read = 0;
  auto cursor = reader->NewSnapshotCursor(INT64_MIN);
  for (; cursor->Valid() && read < max_snapshots; cursor->Next(), ++read) {
    const trace::Snapshot& s = cursor->snapshot();
    if (!s.status.ok()) continue;
    newest = std::max(newest, s.unix_ms);
    const bool lame = s.telemetry.state() == admin::NODE_LAME_DUCK;
    const auto [it, first] = last.try_emplace(s.node, Last{s.sequence, lame, s.unix_ms});
    if (evaluator) {
      if (!first && s.unix_ms - it->second.unix_ms > alerts->stale_after_ms) {
        evaluator->ObserveSilence(s.node, it->second.unix_ms + alerts->stale_after_ms, s.unix_ms,
                                  &alert_changes);
      }
      cluster::AlertObservation observation;
      observation.unix_ms = s.unix_ms;
      observation.answering = true;
      observation.telemetry = &s.telemetry;
      evaluator->Observe(s.node, observation, &alert_changes);
    }
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
    it->second = Last{s.sequence, lame, s.unix_ms};
  }
  if (complete) *complete = cursor->status().ok() && !cursor->Valid();
  if (evaluator) {
    // A node silent at the end, while others were still recorded, was not answering there.
    for (const auto& [node, seen] : last) {
      if (newest - seen.unix_ms > alerts->stale_after_ms) {
        evaluator->ObserveSilence(node, seen.unix_ms + alerts->stale_after_ms, newest + 1,
                                  &alert_changes);
      }
    }
    for (const cluster::AlertTransition& t : alert_changes) {
      if (t.phase == cluster::AlertPhase::kPending) continue;
      changes.push_back({t.unix_ms, QString::fromStdString(t.node),
                         QStringLiteral("%1 %2").arg(QString::fromStdString(t.rule),
                                                     cluster::AlertPhaseName(t.phase))});
    }
    std::stable_sort(changes.begin(), changes.end(),
                     [](const auto& a, const auto& b) { return a.unix_ms < b.unix_ms; });
  }
  return changes;
}

}  // namespace railyard::ui
