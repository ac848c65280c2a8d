// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>
#include <QVector>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ui/models/cluster_state.h"

namespace railyard::trace {
class RecordingReader;
class SnapshotCursor;
}  // namespace railyard::trace

namespace railyard::ui {

// A command seen in a recording, for the timeline's events list.
struct ReplayEvent {
  qint64 unix_ms = 0;
  QString node;
  QString kind;
  QString detail;
};

// Plays a core/trace recording (from railyardctl record, the console's recorder or the
// simulator) into ClusterState, so every view works as it does live.
//
// A QTimer on the GUI thread ticks every tick interval; each tick advances the cluster clock
// by ClusterMsPerTick() = tick interval x speed and applies, as one frame, the latest snapshot of
// each node recorded in that step. Seeking rebuilds ClusterState at the new time: it first plays
// the ClusterState::HistoryMs() before it through ClusterState::ApplyHistoryFrame (so the charts'
// series hold the recorded history up to the seek point), then applies each node's latest
// snapshot at or before it (RecordingReader::Seek) as one frame. Reading a local SQLite file is
// quick and there is no network I/O here.
//
// Thread safety: GUI thread only.
class ReplaySource : public QObject {
  Q_OBJECT
 public:
  static constexpr double kMinSpeed = 0.5;
  static constexpr double kMaxSpeed = 16.0;

  explicit ReplaySource(ClusterState* state, QObject* parent = nullptr);
  ~ReplaySource() override;

  // Opens a recording and seeks to its start. False with a message naming the file on error.
  bool Open(const QString& path, QString* error);
  void Close();
  bool IsOpen() const { return reader_ != nullptr; }
  QString Path() const { return path_; }

  qint64 StartMs() const { return start_ms_; }
  qint64 EndMs() const { return end_ms_; }
  qint64 PositionMs() const { return position_ms_; }
  double Speed() const { return speed_; }
  bool Playing() const { return timer_.isActive(); }
  // A seek replays at most about this many snapshots of history (default 20000).
  void SetMaxHistorySnapshots(double snapshots) { max_history_snapshots_ = snapshots; }
  void SetTickIntervalMs(int ms);
  qint64 ClusterMsPerTick() const;
  const QVector<ReplayEvent>& Events() const { return events_; }
  // Nodes with snapshots in the recording (as of Open).
  int RecordedNodeCount() const { return static_cast<int>(node_names_.size()); }
  // Snapshots applied by the last step (for the benchmark and tests).
  int LastFrameSnapshots() const { return last_frame_snapshots_; }
  // GUI-thread time of the last step's ClusterState::ApplyFrame (models included), in ns; the
  // recording's reading and parsing are not in it.
  qint64 LastApplyNs() const { return last_apply_ns_; }

 public Q_SLOTS:
  void Play();
  void Pause();
  // Clamped to 0.5..16.
  void SetSpeed(double speed);
  // Rebuilds ClusterState at `unix_ms` (clamped to the recording's span).
  void Seek(qint64 unix_ms);
  void JumpToEvent(int index);
  // One tick: advances by ClusterMsPerTick() and applies the snapshots in between.
  void Step();

 Q_SIGNALS:
  void Opened();
  void PositionChanged(qint64 unix_ms);
  void PlayingChanged(bool playing);
  void SpeedChanged(double speed);
  void Finished();  // Reached the end while playing.

 private:
  // A node's last telemetry in a seek's history, and which snapshot it was.
  struct HistoryTail {
    qint64 unix_ms = 0;
    uint64_t sequence = 0;
    std::shared_ptr<const admin::Telemetry> telemetry;
  };

  int NodeIndex(const std::string& name);
  // Plays the snapshots in [position - HistoryMs, position] as history frames; `tails` gets each
  // node's last one. At most about max_history_snapshots_ of them: a dense recording (many nodes
  // at 10 Hz) gets a shorter history rather than a seek that stalls the GUI thread.
  void PlayHistory(std::map<int, HistoryTail>* tails);
  static void AddToFrame(std::vector<ClusterState::Update>* frame, int node,
                         std::shared_ptr<const admin::Telemetry> telemetry, qint64 at_ms);
  // The outages recorded in (from_ms, to_ms] as failed polls in `frame`: each takes its node's
  // place there unless that is a later snapshot (the node answered again).
  void AddOutages(std::vector<ClusterState::Update>* frame, qint64 from_ms, qint64 to_ms);

  // A kEventUnreachable event: the recorder lost the node then, for `reason`.
  struct Outage {
    qint64 unix_ms = 0;
    std::string node;
    QString reason;
  };

  ClusterState* const state_;
  QTimer timer_;
  QString path_;
  std::unique_ptr<trace::RecordingReader> reader_;
  std::unique_ptr<trace::SnapshotCursor> cursor_;
  std::vector<std::string> node_names_;
  std::map<std::string, QString> node_addresses_;
  std::map<std::string, int> node_index_;
  QVector<ReplayEvent> events_;
  std::vector<Outage> outages_;  // Oldest first.
  qint64 start_ms_ = 0;
  qint64 end_ms_ = 0;
  // Recorded snapshots per millisecond, over the whole recording: bounds a seek's history.
  double snapshots_per_ms_ = 0;
  double max_history_snapshots_ = 20000;
  qint64 position_ms_ = 0;
  double speed_ = 1.0;
  int last_frame_snapshots_ = 0;
  qint64 last_apply_ns_ = 0;
  std::vector<ClusterState::Update> frame_;  // Reused per step.
};

}  // namespace railyard::ui
