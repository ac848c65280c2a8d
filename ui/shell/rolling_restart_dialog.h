// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QDialog>
#include <QStringList>
#include <atomic>
#include <functional>
#include <thread>
#include <vector>

#include "core/cluster/doc_copies.h"
#include "core/rpc/status.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace railyard::ui {

// Node > Rolling restart: the nodes chosen, one at a time, drained, waited for until no client
// holds a slot on them, restarted by the operator's command ({name} for the node's name; the
// cluster file's restart_command to begin with), waited for until they serve and have caught
// up, and undrained: cluster::RollingRestart on a worker thread, as `railyardctl
// rolling-restart` runs it. Progress shows as it goes (which node, each step, the command's
// output); it stops at the first failure and says where; Stop ends it after the step under way.
//
// Thread safety: GUI thread only; the worker touches only its own copies and the stop flag. The
// destructor stops a run and waits for it (a restart command under way is let finish).
class RollingRestartDialog : public QDialog {
  Q_OBJECT
 public:
  using TargetProvider = std::function<std::vector<cluster::CopyTarget>()>;
  struct Node {
    QString name;
    QString role;  // "updater", "replica", or empty.
  };
  RollingRestartDialog(TargetProvider targets, QWidget* parent = nullptr);
  ~RollingRestartDialog() override;

  // The nodes offered, in the order they will go (the caller's: replicas first, the updater
  // last); those in `checked` are ticked, all of them if it is empty. Not while running.
  void SetNodes(const QVector<Node>& nodes, const QStringList& checked);
  void SetRestartCommand(const QString& command);
  void SetTimeouts(int drain_seconds, int serve_seconds);
  // Starts with the ticked nodes (what the Start button does); false, saying why, if it cannot.
  bool Start();
  // Stops after the step under way (what the Stop button does).
  void Stop();
  bool Running() const { return running_; }
  QStringList CheckedNodes() const;
  // The line under the buttons: the run's state, or why there is nothing to run.
  QString StatusText() const;
  QString LogText() const;

 Q_SIGNALS:
  // The run ended: every node restarted (ok), or where it stopped and why.
  void Finished(bool ok, const QString& message, const QStringList& nodes,
                const QString& restart_command);

 private:
  void Append(const QString& line);
  // Ticks (or unticks) every node offered.
  void SetAllChecked(bool checked);
  void SetSettingsEnabled(bool enabled);
  void OnNodeStarted(int index, int count, const QString& node);
  void OnFinished(const rpc::Status& status);
  void JoinWorker();

  const TargetProvider targets_;
  QListWidget* nodes_;
  QPushButton* tick_all_;
  QPushButton* tick_none_;
  QLineEdit* command_;
  QSpinBox* drain_timeout_;
  QSpinBox* serve_timeout_;
  QCheckBox* allow_last_replica_;
  QProgressBar* progress_;
  QLabel* status_;
  QPlainTextEdit* log_;
  QPushButton* start_;
  QPushButton* stop_button_;
  bool running_ = false;
  QStringList running_nodes_;
  QString running_command_;
  std::atomic<bool> stop_{false};
  std::thread worker_;
};

}  // namespace railyard::ui
