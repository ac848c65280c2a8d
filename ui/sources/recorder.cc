// SPDX-License-Identifier: Apache-2.0
#include "ui/sources/recorder.h"

#include <QDateTime>
#include <deque>
#include <set>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "core/base/mutex.h"
#include "core/trace/recording_writer.h"
#include "core/trace/telemetry_recorder.h"

namespace railyard::ui {

// Owns the writer and the trace layer's TelemetryRecorder; appends what the GUI thread queues.
class RecorderWorker {
 public:
  struct SnapshotItem {
    std::string node;
    std::shared_ptr<const admin::Telemetry> telemetry;
    bool history_only = false;  // What was known before recording started: not recorded.
  };
  struct EventItem {
    int64_t unix_ms = 0;
    std::string node, kind, detail;
  };
  struct UnreachableItem {  // A poll failed: recorded once per outage.
    std::string node;
    int64_t unix_ms = 0;
    std::string reason;
  };
  struct ResetItem {};  // The cluster changed: forget which commands were seen.
  struct NodeOrderItem {
    std::vector<std::string> names;  // As the console's rows (ClusterState's indexes) order them.
  };
  using Item = std::variant<SnapshotItem, EventItem, UnreachableItem, ResetItem, NodeOrderItem>;

  explicit RecorderWorker(std::unique_ptr<trace::RecordingWriter> writer)
      : writer_(std::move(writer)), recorder_(writer_.get()) {
    thread_ = std::thread([this] { Run(); });
  }

  // Joins after writing everything queued; returns the first error.
  std::string Finish() {
    {
      base::MutexLock lock(mu_);
      stop_ = true;
    }
    cv_.NotifyAll();
    thread_.join();
    if (trace::Status s = writer_->Close(); !s.ok() && error_.empty()) error_ = s.ToString();
    return error_;
  }

  void Push(Item item) {
    {
      base::MutexLock lock(mu_);
      queue_.push_back(std::move(item));
    }
    cv_.NotifyAll();
  }

 private:
  void Run() {
    std::deque<Item> batch;
    while (true) {
      {
        base::MutexLock lock(mu_);
        // Wakes at least once a second so a quiet recording still commits.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
        while (!stop_ && queue_.empty() && cv_.WaitUntil(mu_, deadline)) {
        }
        batch.swap(queue_);
        if (batch.empty() && stop_) return;
      }
      for (auto& item : batch) {
        trace::Status s;
        if (auto* snapshot = std::get_if<SnapshotItem>(&item)) {
          if (snapshot->history_only) {
            recorder_.SkipHistory(snapshot->node, *snapshot->telemetry);
          } else {
            s = recorder_.Record(snapshot->node, *snapshot->telemetry);
          }
        } else if (auto* e = std::get_if<EventItem>(&item)) {
          s = writer_->AppendEvent(e->unix_ms, e->node, e->kind, e->detail);
        } else if (auto* u = std::get_if<UnreachableItem>(&item)) {
          s = recorder_.RecordUnreachable(u->node, u->unix_ms, u->reason);
        } else if (auto* o = std::get_if<NodeOrderItem>(&item)) {
          s = writer_->SetNodeOrder(o->names);
        } else {
          recorder_.Reset();
        }
        if (!s.ok() && error_.empty()) error_ = s.ToString();
      }
      batch.clear();
      if (trace::Status s = writer_->Commit(); !s.ok() && error_.empty()) error_ = s.ToString();
    }
  }

  std::unique_ptr<trace::RecordingWriter> writer_;  // Worker thread only (until finish).
  trace::TelemetryRecorder recorder_;               // Worker thread only.
  std::string error_;                               // Worker thread, then finish.
  base::Mutex mu_;
  base::CondVar cv_;
  std::deque<Item> queue_ RAILYARD_GUARDED_BY(mu_);
  bool stop_ RAILYARD_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

Recorder::Recorder(ClusterState* state, QObject* parent) : QObject(parent), state_(state) {
  connect(state_, &ClusterState::FrameApplied, this, &Recorder::OnFrame);
  connect(state_, &ClusterState::NodesReset, this, [this] {
    if (const int removed = state_->RemovedNode(); removed >= 0) {
      // Remove node: the others are the same nodes, renumbered. Clearing here wrote each one's
      // current snapshot and its recent commands into the recording a second time.
      ForgetRemovedNode(last_recorded_, removed);
      ForgetRemovedNode(down_, removed);
      return;
    }
    last_recorded_.clear();
    down_.clear();
    if (worker_) worker_->Push(RecorderWorker::ResetItem{});
  });
}

Recorder::~Recorder() { Stop(); }

bool Recorder::Start(const QString& path, QString* error) {
  Stop();
  std::unique_ptr<trace::RecordingWriter> writer;
  trace::WriterOptions options;
  options.writer = "railyard console";
  if (trace::Status s = trace::RecordingWriter::Create(path.toStdString(), options, &writer);
      !s.ok()) {
    if (error) *error = QString::fromStdString(s.ToString());
    return false;
  }
  worker_ = std::make_unique<RecorderWorker>(std::move(writer));
  path_ = path;
  snapshots_ = 0;
  // What is already known goes in first, so the recording starts with the whole cluster; but
  // commands already done before recording started are history, not part of it.
  last_recorded_.clear();
  down_.clear();
  node_order_.clear();
  rows_ordered_.clear();
  QVector<int> all;
  for (int i = 0; i < state_->NodeCount(); ++i) {
    all.push_back(i);
    if (const auto& t = state_->Node(i).telemetry) {
      worker_->Push(RecorderWorker::SnapshotItem{state_->Node(i).name.toStdString(), t, true});
    }
  }
  OnFrame(all);
  Q_EMIT RecordingChanged(true);
  return true;
}

QString Recorder::Stop() {
  if (!worker_) return {};
  const std::string error = worker_->Finish();
  worker_.reset();
  Q_EMIT RecordingChanged(false);
  return QString::fromStdString(error);
}

void Recorder::OnFrame(const QVector<int>& changed) {
  if (!worker_) return;
  // The rows' order, each time a node is added, removed or named, so that a replay gives each
  // node the row and colour it has here (C16). A removed node keeps a place after the others:
  // its snapshots stay in the recording.
  // Compared as shared QStrings each frame; converted only when a row changed.
  QStringList rows;
  rows.reserve(state_->NodeCount());
  for (int i = 0; i < state_->NodeCount(); ++i) rows.push_back(state_->Node(i).name);
  if (rows != rows_ordered_) {
    rows_ordered_ = rows;
    std::vector<std::string> order;
    std::set<std::string> current;
    for (const QString& name : rows) {
      if (name.isEmpty() || name.contains(QLatin1Char('\n'))) continue;
      order.push_back(name.toStdString());
      current.insert(order.back());
    }
    for (const std::string& name : node_order_) {
      if (!current.contains(name)) order.push_back(name);
    }
    if (order != node_order_) {
      node_order_ = order;
      worker_->Push(RecorderWorker::NodeOrderItem{std::move(order)});
    }
  }
  for (int i : changed) {
    if (i < 0 || i >= state_->NodeCount()) continue;
    const NodeView& node = state_->Node(i);
    if (node.telemetry && last_recorded_.value(i) != node.telemetry.get()) {
      last_recorded_[i] = node.telemetry.get();
      worker_->Push(RecorderWorker::SnapshotItem{node.name.toStdString(), node.telemetry});
      ++snapshots_;
    }
    // A node seen before that stops answering: a replay shows it unreachable from then, with the
    // reason, as this console did (docs/figures.md). A refused token is ours, not the node's.
    if (node.health != NodeHealth::kUnreachable) {
      down_.remove(i);
    } else if (node.telemetry && !down_.contains(i)) {
      down_.insert(i, true);
      worker_->Push(RecorderWorker::UnreachableItem{node.name.toStdString(), node.down_since_ms,
                                                    node.last_error.toStdString()});
    }
  }
}

void Recorder::RecordAction(const admin::CommandEvent& event, bool node_recorded) {
  if (!worker_ || node_recorded) return;
  // The event's detail starts "NAME (ADMIN ADDRESS)"; match the whole name or the whole
  // parenthesised address, so that node1 is never taken for node10.
  const QString detail = QString::fromStdString(event.detail());
  std::string node = "console";
  for (int i = 0; i < state_->NodeCount(); ++i) {
    const NodeView& view = state_->Node(i);
    if (detail.startsWith(view.name + QStringLiteral(" (")) ||
        detail.contains(QStringLiteral("(%1)").arg(view.admin_address))) {
      node = view.name.toStdString();
      break;
    }
  }
  const int64_t unix_ms =
      event.unix_ms() > 0 ? event.unix_ms() : QDateTime::currentMSecsSinceEpoch();
  worker_->Push(RecorderWorker::EventItem{
      unix_ms, node, event.command(),
      "console action by " + event.by() + ": " + event.detail() + " -> " + event.result()});
}

}  // namespace railyard::ui
