// SPDX-License-Identifier: Apache-2.0
#include "ui/sources/replay_source.h"

#include "core/trace/recording.h"

#include <QElapsedTimer>
#include <algorithm>

#include "core/trace/recording_reader.h"

namespace railyard::ui {

ReplaySource::ReplaySource(ClusterState* state, QObject* parent) : QObject(parent), state_(state) {
  timer_.setInterval(50);
  connect(&timer_, &QTimer::timeout, this, &ReplaySource::Step);
}

ReplaySource::~ReplaySource() = default;

bool ReplaySource::Open(const QString& path, QString* error) {
  Close();
  std::unique_ptr<trace::RecordingReader> reader;
  trace::Status s = trace::RecordingReader::Open(path.toStdString(), &reader);
  trace::TimeSpan span;
  std::vector<std::string> names;
  std::vector<trace::Event> events;
  std::vector<trace::Snapshot> last;
  // The recorder's row order, so that each node has the colour and row it had live.
  if (s.ok()) s = reader->NodesInOrder(&names);
  if (s.ok()) s = reader->Events(&events);
  if (s.ok()) {
    s = reader->Span(&span);
    if (s.IsNotFound())
      s = trace::Status::InvalidArgument(path.toStdString() + ": empty recording");
  }
  if (s.ok()) s = reader->Seek(span.last_unix_ms, &last);
  uint64_t snapshot_count = 0;
  if (s.ok()) s = reader->SnapshotCount(&snapshot_count);
  if (!s.ok()) {
    if (error) *error = QString::fromStdString(s.ToString());
    return false;
  }
  reader_ = std::move(reader);
  path_ = path;
  node_names_ = std::move(names);
  for (const trace::Snapshot& snapshot : last) {
    const std::string& address = snapshot.telemetry.admin_address();
    node_addresses_[snapshot.node] =
        QString::fromStdString(address.empty() ? snapshot.node : address);
  }
  events_.clear();
  outages_.clear();
  start_ms_ = span.first_unix_ms;
  end_ms_ = span.last_unix_ms;
  for (const trace::Event& e : events) {
    events_.push_back({e.unix_ms, QString::fromStdString(e.node), QString::fromStdString(e.kind),
                       QString::fromStdString(e.detail)});
    if (e.kind == trace::kEventUnreachable) {
      outages_.push_back({e.unix_ms, e.node, QString::fromStdString(e.detail)});
      end_ms_ = std::max<qint64>(end_ms_, e.unix_ms);  // A recording may end in an outage.
    }
  }
  std::stable_sort(outages_.begin(), outages_.end(),
                   [](const Outage& a, const Outage& b) { return a.unix_ms < b.unix_ms; });
  snapshots_per_ms_ = static_cast<double>(snapshot_count) /
                      static_cast<double>(std::max<qint64>(1, end_ms_ - start_ms_));
  Q_EMIT Opened();
  Seek(start_ms_);
  return true;
}

void ReplaySource::Close() {
  Pause();
  cursor_.reset();
  reader_.reset();
  node_names_.clear();
  node_addresses_.clear();
  node_index_.clear();
  events_.clear();
  outages_.clear();
  path_.clear();
  start_ms_ = end_ms_ = position_ms_ = 0;
}

void ReplaySource::SetTickIntervalMs(int ms) { timer_.setInterval(std::clamp(ms, 5, 1000)); }

qint64 ReplaySource::ClusterMsPerTick() const {
  return std::max<qint64>(1, qRound64(double(timer_.interval()) * speed_));
}

void ReplaySource::Play() {
  if (!reader_ || timer_.isActive()) return;
  if (position_ms_ >= end_ms_) Seek(start_ms_);
  timer_.start();
  Q_EMIT PlayingChanged(true);
}

void ReplaySource::Pause() {
  if (!timer_.isActive()) return;
  timer_.stop();
  Q_EMIT PlayingChanged(false);
}

void ReplaySource::SetSpeed(double speed) {
  speed = std::clamp(speed, kMinSpeed, kMaxSpeed);
  if (speed == speed_) return;
  speed_ = speed;
  Q_EMIT SpeedChanged(speed_);
}

int ReplaySource::NodeIndex(const std::string& name) {
  if (auto it = node_index_.find(name); it != node_index_.end()) return it->second;
  // A node that started reporting after Open() (the file is still being written).
  auto address = node_addresses_.find(name);
  const QString qname = QString::fromStdString(name);
  const int index =
      state_->AddNode(address != node_addresses_.end() ? address->second : qname, qname);
  node_index_[name] = index;
  return index;
}

void ReplaySource::Seek(qint64 unix_ms) {
  if (!reader_) return;
  position_ms_ = std::clamp(unix_ms, start_ms_, end_ms_);
  // Rebuild from nothing: the same nodes in the same order, so node indexes stay put.
  state_->Clear();
  node_index_.clear();
  for (const std::string& name : node_names_) NodeIndex(name);
  std::map<int, HistoryTail> tails;
  PlayHistory(&tails);
  std::vector<trace::Snapshot> snapshots;
  frame_.clear();
  if (trace::Status s = reader_->Seek(position_ms_, &snapshots); s.ok()) {
    for (trace::Snapshot& snapshot : snapshots) {
      if (!snapshot.status.ok()) continue;
      const int node = NodeIndex(snapshot.node);
      // The history's own last telemetry of the node, so the time series do not count it twice.
      const auto tail = tails.find(node);
      const bool same = tail != tails.end() && tail->second.unix_ms == snapshot.unix_ms &&
                        tail->second.sequence == snapshot.sequence;
      frame_.push_back(
          {node,
           same ? tail->second.telemetry
                : std::make_shared<const admin::Telemetry>(std::move(snapshot.telemetry)),
           {},
           snapshot.unix_ms});
    }
  }
  last_frame_snapshots_ = static_cast<int>(frame_.size());
  AddOutages(&frame_, start_ms_ - 1, position_ms_);
  state_->ApplyFrame(frame_, position_ms_);
  cursor_ = reader_->NewSnapshotCursor(position_ms_ + 1);
  Q_EMIT PositionChanged(position_ms_);
}

void ReplaySource::PlayHistory(std::map<int, HistoryTail>* tails) {
  qint64 history_ms = state_->HistoryMs();
  if (snapshots_per_ms_ > 0) {
    history_ms =
        std::min(history_ms, static_cast<qint64>(max_history_snapshots_ / snapshots_per_ms_));
  }
  if (history_ms <= 0) return;
  // Frames as playing at 1x would apply them: one per tick interval of recorded time.
  const qint64 frame_ms = timer_.interval();
  std::vector<ClusterState::Update> frame;
  qint64 frame_start = 0;
  qint64 frame_now = 0;
  qint64 applied_to = position_ms_ - history_ms - 1;  // Outages up to here are in the history.
  auto apply = [&] {
    AddOutages(&frame, applied_to, frame_now);
    applied_to = frame_now;
    state_->ApplyHistoryFrame(frame, frame_now);
    frame.clear();
  };
  auto cursor = reader_->NewSnapshotCursor(position_ms_ - history_ms);
  for (; cursor->Valid() && cursor->snapshot().unix_ms <= position_ms_; cursor->Next()) {
    // The cursor's snapshot is ours until Next(): take its telemetry rather than copy it.
    trace::Snapshot& snapshot = const_cast<trace::Snapshot&>(cursor->snapshot());
    if (!snapshot.status.ok()) continue;
    if (!frame.empty() && snapshot.unix_ms >= frame_start + frame_ms) apply();
    if (frame.empty()) frame_start = snapshot.unix_ms;
    frame_now = snapshot.unix_ms;
    const int node = NodeIndex(snapshot.node);
    auto telemetry = std::make_shared<const admin::Telemetry>(std::move(snapshot.telemetry));
    (*tails)[node] = {snapshot.unix_ms, snapshot.sequence, telemetry};
    AddToFrame(&frame, node, std::move(telemetry), snapshot.unix_ms);
  }
  if (!frame.empty()) apply();
}

void ReplaySource::AddToFrame(std::vector<ClusterState::Update>* frame, int node,
                              std::shared_ptr<const admin::Telemetry> telemetry, qint64 at_ms) {
  // Several snapshots of one node in one frame (fast playback): the latest wins.
  auto same = std::find_if(frame->begin(), frame->end(),
                           [node](const ClusterState::Update& u) { return u.node == node; });
  if (same != frame->end()) {
    same->telemetry = std::move(telemetry);
    same->at_ms = at_ms;
  } else {
    frame->push_back({node, std::move(telemetry), {}, at_ms});
  }
}

void ReplaySource::AddOutages(std::vector<ClusterState::Update>* frame, qint64 from_ms,
                              qint64 to_ms) {
  auto first = std::upper_bound(outages_.begin(), outages_.end(), from_ms,
                                [](qint64 t, const Outage& o) { return t < o.unix_ms; });
  for (auto it = first; it != outages_.end() && it->unix_ms <= to_ms; ++it) {
    const int node = NodeIndex(it->node);
    auto same = std::find_if(frame->begin(), frame->end(),
                             [node](const ClusterState::Update& u) { return u.node == node; });
    ClusterState::Update failed{node, nullptr, it->reason, it->unix_ms};
    if (same == frame->end()) {
      frame->push_back(std::move(failed));
    } else if (same->at_ms <= it->unix_ms) {
      *same = std::move(failed);
    }
  }
}

void ReplaySource::JumpToEvent(int index) {
  if (index < 0 || index >= events_.size()) return;
  Seek(events_[index].unix_ms);
}

void ReplaySource::Step() {
  if (!reader_ || !cursor_) return;
  const qint64 target = std::min(end_ms_, position_ms_ + ClusterMsPerTick());
  frame_.clear();
  int applied = 0;
  for (; cursor_->Valid() && cursor_->snapshot().unix_ms <= target; cursor_->Next()) {
    // The cursor's snapshot is ours until Next(): take its telemetry rather than copy it.
    trace::Snapshot& snapshot = const_cast<trace::Snapshot&>(cursor_->snapshot());
    if (!snapshot.status.ok()) continue;
    AddToFrame(&frame_, NodeIndex(snapshot.node),
               std::make_shared<const admin::Telemetry>(std::move(snapshot.telemetry)),
               snapshot.unix_ms);
    ++applied;
  }
  AddOutages(&frame_, position_ms_, target);
  position_ms_ = target;
  last_frame_snapshots_ = applied;
  QElapsedTimer apply;
  apply.start();
  state_->ApplyFrame(frame_, position_ms_);
  last_apply_ns_ = apply.nsecsElapsed();
  Q_EMIT PositionChanged(position_ms_);
  if (position_ms_ >= end_ms_ && timer_.isActive()) {
    Pause();
    Q_EMIT Finished();
  }
}

}  // namespace railyard::ui
