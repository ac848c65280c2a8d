// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QHash>
#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>
#include <string>
#include <vector>

#include "railyard/admin.pb.h"
#include "ui/models/cluster_state.h"

namespace railyard::ui {

class RecorderWorker;

// Records the live cluster into a core/trace recording (the format `railyardctl record` writes,
// so the console and railyardctl replay it alike): every new telemetry snapshot ClusterState
// receives, the commands nodes report in their telemetry, the console's own actions
// (RecordAction, connected to the action controller's ActionFinished), and each outage of a node
// it had heard from (a trace::kEventUnreachable event with the reason), so that a replay shows
// the node unreachable when the console did.
//
// SQLite writes happen on a worker thread that owns the RecordingWriter; the GUI thread only
// queues shared pointers to the telemetry it already holds.
//
// Thread safety: every method on the GUI thread.
class Recorder : public QObject {
  Q_OBJECT
 public:
  explicit Recorder(ClusterState* state, QObject* parent = nullptr);
  ~Recorder() override;  // Stops, committing what was queued.

  // Creates (or appends to) the recording at `path`. False with a message on error.
  bool Start(const QString& path, QString* error);
  // Commits and closes; returns the first write error, if any (empty when all went well).
  QString Stop();
  bool Recording() const { return worker_ != nullptr; }
  QString Path() const { return path_; }
  quint64 SnapshotsQueued() const { return snapshots_; }

 public Q_SLOTS:
  // Records a console action that its node did not log itself (`node_recorded` false: refused at
  // the token check, or the node unreachable). One the node logged comes with its telemetry;
  // recording it here too showed every action twice (C12).
  void RecordAction(const railyard::admin::CommandEvent& event, bool node_recorded = false);

 Q_SIGNALS:
  void RecordingChanged(bool recording);

 private:
  void OnFrame(const QVector<int>& changed);

  ClusterState* const state_;
  std::unique_ptr<RecorderWorker> worker_;
  QString path_;
  QHash<int, const admin::Telemetry*> last_recorded_;  // Per node: identity of the last snapshot.
  QHash<int, bool> down_;  // Nodes whose outage is recorded (true), until they answer again.
  std::vector<std::string> node_order_;  // As last written to the recording.
  QStringList rows_ordered_;             // The rows' names node_order_ was made from.
  quint64 snapshots_ = 0;
};

}  // namespace railyard::ui
