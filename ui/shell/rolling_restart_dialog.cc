// SPDX-License-Identifier: Apache-2.0
#include "ui/shell/rolling_restart_dialog.h"

#include <QCheckBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <chrono>
#include <initializer_list>

#include "core/cluster/restart_command.h"
#include "core/cluster/rolling_restart.h"
#include "ui/actions/audit_log.h"
#include "ui/support/gui_thread.h"

namespace railyard::ui {

RollingRestartDialog::RollingRestartDialog(TargetProvider targets, QWidget* parent)
    : QDialog(parent), targets_(std::move(targets)) {
  setWindowTitle(tr("Rolling restart"));
  auto* intro = new QLabel(
      tr("Each ticked node in turn, top to bottom: drain it, wait until no client holds a slot "
         "on it, restart it, wait until it serves and has caught up, undrain it. The first "
         "failure stops the run."),
      this);
  intro->setWordWrap(true);
  nodes_ = new QListWidget(this);
  nodes_->setAccessibleName(tr("Nodes to restart"));
  tick_all_ = new QPushButton(tr("Tick &all"), this);
  tick_all_->setObjectName(QStringLiteral("tickAll"));
  tick_none_ = new QPushButton(tr("Tick &none"), this);
  tick_none_->setObjectName(QStringLiteral("tickNone"));
  command_ = new QLineEdit(this);
  command_->setPlaceholderText(tr("ssh {name} sudo systemctl restart railyard-node"));
  command_->setToolTip(
      tr("Run by /bin/sh for each node, {name} replaced by the node's name; it should return once "
         "the node's process was started again"));
  command_->setAccessibleName(tr("Restart command"));
  drain_timeout_ = new QSpinBox(this);
  drain_timeout_->setRange(1, 3600);
  drain_timeout_->setSuffix(tr(" s"));
  drain_timeout_->setValue(60);
  serve_timeout_ = new QSpinBox(this);
  serve_timeout_->setRange(1, 3600);
  serve_timeout_->setSuffix(tr(" s"));
  serve_timeout_->setValue(120);
  allow_last_replica_ =
      new QCheckBox(tr("Go on when a node is the last replica that serves"), this);
  allow_last_replica_->setToolTip(
      tr("Otherwise the run stops there: draining it leaves every read on the updater"));
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1);
  progress_->setValue(0);
  progress_->setTextVisible(false);  // No count before a run: "0 of 1" would be no figure at all.
  status_ = new QLabel(tr("Not started."), this);
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  log_ = new QPlainTextEdit(this);
  log_->setReadOnly(true);
  log_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  log_->setMaximumBlockCount(5000);
  start_ = new QPushButton(tr("&Start"), this);
  stop_button_ = new QPushButton(tr("S&top"), this);
  stop_button_->setEnabled(false);
  stop_button_->setToolTip(tr("Stop after the step under way"));
  auto* close = new QPushButton(tr("&Close"), this);

  auto* form = new QFormLayout;
  form->addRow(tr("Restart command:"), command_);
  auto* timeouts = new QHBoxLayout;
  timeouts->addWidget(new QLabel(tr("Drain within"), this));
  timeouts->addWidget(drain_timeout_);
  timeouts->addSpacing(12);
  timeouts->addWidget(new QLabel(tr("serve and catch up within"), this));
  timeouts->addWidget(serve_timeout_);
  timeouts->addStretch(1);
  form->addRow(tr("Timeouts:"), timeouts);
  form->addRow(QString(), allow_last_replica_);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(progress_, 1);
  buttons->addWidget(start_);
  buttons->addWidget(stop_button_);
  buttons->addWidget(close);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(intro);
  layout->addWidget(nodes_, 1);
  auto* ticks = new QHBoxLayout;
  ticks->addWidget(tick_all_);
  ticks->addWidget(tick_none_);
  ticks->addStretch(1);
  layout->addLayout(ticks);
  layout->addLayout(form);
  layout->addLayout(buttons);
  layout->addWidget(status_);
  layout->addWidget(log_, 3);
  resize(760, 560);

  connect(start_, &QPushButton::clicked, this, [this] { Start(); });
  connect(tick_all_, &QPushButton::clicked, this, [this] { SetAllChecked(true); });
  connect(tick_none_, &QPushButton::clicked, this, [this] { SetAllChecked(false); });
  connect(stop_button_, &QPushButton::clicked, this, &RollingRestartDialog::Stop);
  connect(close, &QPushButton::clicked, this, &QDialog::hide);  // A run goes on meanwhile.
}

RollingRestartDialog::~RollingRestartDialog() {
  stop_ = true;
  JoinWorker();
}

void RollingRestartDialog::JoinWorker() {
  if (worker_.joinable()) worker_.join();
}

void RollingRestartDialog::SetNodes(const QVector<Node>& nodes, const QStringList& checked) {
  if (running_) return;
  nodes_->clear();
  // The last run's count belongs to its nodes; its lines stay in the log below.
  progress_->setTextVisible(false);
  progress_->setValue(0);
  const QString nothing = tr("No node that serves is watched: there is nothing to restart.");
  if (nodes.isEmpty()) {
    status_->setStyleSheet(QString());
    status_->setText(nothing);
  } else if (status_->text() == nothing) {
    status_->setText(tr("Not started."));  // Not a warning about nodes it now has.
  }
  for (const Node& node : nodes) {
    auto* item = new QListWidgetItem(
        node.role.isEmpty() ? node.name : QStringLiteral("%1 (%2)").arg(node.name, node.role),
        nodes_);
    item->setData(Qt::UserRole, node.name);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
    item->setCheckState(checked.isEmpty() || checked.contains(node.name) ? Qt::Checked
                                                                         : Qt::Unchecked);
  }
}

void RollingRestartDialog::SetRestartCommand(const QString& command) { command_->setText(command); }

void RollingRestartDialog::SetTimeouts(int drain_seconds, int serve_seconds) {
  drain_timeout_->setValue(drain_seconds);
  serve_timeout_->setValue(serve_seconds);
}

QString RollingRestartDialog::StatusText() const { return status_->text(); }

QStringList RollingRestartDialog::CheckedNodes() const {
  QStringList names;
  for (int i = 0; i < nodes_->count(); ++i) {
    if (nodes_->item(i)->checkState() == Qt::Checked) {
      names << nodes_->item(i)->data(Qt::UserRole).toString();
    }
  }
  return names;
}

QString RollingRestartDialog::LogText() const { return log_->toPlainText(); }

void RollingRestartDialog::Append(const QString& line) { log_->appendPlainText(line); }

void RollingRestartDialog::SetAllChecked(bool checked) {
  for (int i = 0; i < nodes_->count(); ++i) {
    nodes_->item(i)->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
  }
}

void RollingRestartDialog::SetSettingsEnabled(bool enabled) {
  // A run goes on with what it started with: nothing here may look as if it changed that.
  for (QWidget* w :
       std::initializer_list<QWidget*>{nodes_, tick_all_, tick_none_, command_, drain_timeout_,
                                       serve_timeout_, allow_last_replica_}) {
    w->setEnabled(enabled);
  }
}

bool RollingRestartDialog::Start() {
  if (running_) return false;
  const QStringList chosen = CheckedNodes();
  const QString command = command_->text().trimmed();
  QString problem;
  if (chosen.isEmpty()) problem = tr("Tick at least one node to restart.");
  if (problem.isEmpty() && command.isEmpty()) {
    problem = tr("Give the command that restarts a node ({name} stands for its name).");
  }
  const std::vector<cluster::CopyTarget> cluster = targets_();
  if (problem.isEmpty() && cluster.empty()) problem = tr("No live cluster is watched.");
  if (!problem.isEmpty()) {
    status_->setText(problem);
    return false;
  }
  JoinWorker();  // The last run's thread, ended.
  running_ = true;
  running_nodes_ = chosen;
  running_command_ = command;
  stop_ = false;
  log_->clear();
  progress_->setRange(0, int(chosen.size()));
  progress_->setValue(0);
  progress_->setFormat(tr("%v of %m nodes"));
  progress_->setTextVisible(true);
  status_->setText(tr("Starting\u2026"));
  status_->setStyleSheet(QString());  // A failure's red is the last run's.
  start_->setEnabled(false);
  stop_button_->setEnabled(true);
  SetSettingsEnabled(false);

  cluster::RollingRestartOptions options;
  options.cluster = cluster;
  for (const QString& name : chosen) options.nodes.push_back(name.toStdString());
  options.drain_timeout = std::chrono::seconds(drain_timeout_->value());
  options.serve_timeout = std::chrono::seconds(serve_timeout_->value());
  options.allow_last_replica = allow_last_replica_->isChecked();
  options.client_name = ("railyard console (" + AuditLog::CurrentUser() + ")").toStdString();
  options.stop = &stop_;
  // The worker only posts to `this`, which joins it before it goes.
  options.progress = [this](const std::string& line) {
    RunOnReceiverThread(this, [this, text = QString::fromStdString(line)] { Append(text); });
  };
  options.node_started = [this](size_t index, size_t count, const std::string& node) {
    RunOnReceiverThread(this, [this, index, count, name = QString::fromStdString(node)] {
      OnNodeStarted(int(index), int(count), name);
    });
  };
  const std::string restart = command.toStdString();
  const std::chrono::milliseconds command_timeout = options.serve_timeout;
  options.restart = [this, restart, command_timeout](const std::string& node) {
    std::string output;
    const rpc::Status s = cluster::RunRestartCommand(restart, node, command_timeout, &output);
    while (!output.empty() && output.back() == '\n') output.pop_back();
    if (!output.empty()) {
      RunOnReceiverThread(this, [this, text = QString::fromStdString(output)] {
        for (const QString& line : text.split(QLatin1Char('\n')))
          Append(QStringLiteral("  | ") + line);
      });
    }
    return s;
  };
  worker_ = std::thread([this, options] {
    const rpc::Status s = cluster::RollingRestart(options);
    RunOnReceiverThread(this, [this, s] { OnFinished(s); });
  });
  return true;
}

void RollingRestartDialog::Stop() {
  if (!running_) return;
  stop_ = true;
  stop_button_->setEnabled(false);
  status_->setText(tr("Stopping after the step under way\u2026"));
}

void RollingRestartDialog::OnNodeStarted(int index, int count, const QString& node) {
  progress_->setRange(0, count);
  progress_->setValue(index);
  status_->setText(tr("Node %1 of %2: %3").arg(index + 1).arg(count).arg(node));
}

void RollingRestartDialog::OnFinished(const rpc::Status& status) {
  running_ = false;
  start_->setEnabled(true);
  stop_button_->setEnabled(false);
  SetSettingsEnabled(true);
  QString message;
  if (status.ok()) {
    progress_->setValue(progress_->maximum());
    message = tr("Done: %1 restarted, each serving and caught up.")
                  .arg(running_nodes_.join(QStringLiteral(", ")));
    status_->setStyleSheet(QString());
  } else {
    message = status.code() == rpc::Code::kCancelled
                  ? tr("Stopped: %1").arg(QString::fromStdString(status.message()))
                  : tr("Failed: %1").arg(QString::fromStdString(status.message()));
    status_->setStyleSheet(QStringLiteral("color: #b00020;"));
  }
  status_->setText(message);
  Append(message);
  Q_EMIT Finished(status.ok(), message, running_nodes_, running_command_);
}

}  // namespace railyard::ui
