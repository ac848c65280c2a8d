// SPDX-License-Identifier: Apache-2.0
#include "ui/models/compaction_model.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "storage/compaction_rule.h"

namespace railyard::ui {

CompactionModel::CompactionModel(ClusterState* state, QObject* parent)
    : QObject(parent), state_(state), history_(new CompactionHistoryModel(this)) {
  connect(state_, &ClusterState::FrameApplied, this, &CompactionModel::OnFrame);
  connect(state_, &ClusterState::NodesReset, this, [this] {
    node_ = -1;
    baselines_.clear();
    Reset();
    Q_EMIT Changed();
  });
}

void CompactionModel::SetNode(int node_index) {
  if (node_index == node_ && has_data_) return;
  node_ = node_index;
  Reset();
  Recompute();
  Q_EMIT Changed();
}

void CompactionModel::Reset() {
  has_data_ = false;
  indexes_.clear();
  history_->Clear();
  memtable_entries_ = memtable_capacity_ = 0;
  index_entry_writes_ = document_writes_ = 0;
  seen_entries_.clear();
  cache_.Reset();
}

void CompactionModel::NoteBaseline(int node) {
  if (node < 0 || node >= state_->NodeCount()) return;
  const std::shared_ptr<const admin::Telemetry> telemetry = state_->Node(node).telemetry;
  if (!telemetry) return;
  const admin::StorageStats& storage = telemetry->storage();
  const Baseline now{storage.index_entry_writes(), storage.writes() + storage.deletes()};
  const auto it = baselines_.constFind(node);
  if (it == baselines_.constEnd() || now.document_writes < it->document_writes ||
      now.index_entry_writes < it->index_entry_writes) {
    baselines_.insert(node, now);  // First sight, or the node restarted: count from here.
  }
}

void CompactionModel::OnFrame(const QVector<int>& changed) {
  // Every node's baseline, shown or not: a node's figure then covers the whole time the console
  // watched the cluster, and switching to it shows no jump from a fresh start.
  for (int node : changed) NoteBaseline(node);
  if (node_ < 0 || !changed.contains(node_)) return;
  Recompute();
  Q_EMIT this->Changed();
}

void CompactionModel::Recompute() {
  if (node_ < 0 || node_ >= state_->NodeCount()) return;
  const std::shared_ptr<const admin::Telemetry> telemetry = state_->Node(node_).telemetry;
  if (!telemetry) return;
  const admin::StorageStats& storage = telemetry->storage();
  has_data_ = true;

  indexes_.clear();
  indexes_.reserve(storage.indexes_size());
  for (const admin::IndexInfo& info : storage.indexes()) {
    IndexBar bar;
    bar.id = info.id();
    bar.entries = info.entries();
    bar.bytes = info.bytes();
    bar.age_ms = std::max<qint64>(0, telemetry->unix_ms() - info.created_unix_ms());
    bar.bloom_pages = info.bloom_pages();
    bar.p_no = info.p_no();
    indexes_.push_back(bar);
    seen_entries_.insert(bar.id, bar.entries);
  }
  memtable_entries_ = storage.memtable_entries();
  memtable_capacity_ = storage.memtable_capacity();

  history_->AddReported(storage);
  cache_.Update(*telemetry);

  index_entry_writes_ = storage.index_entry_writes();
  document_writes_ = storage.writes() + storage.deletes();
  NoteBaseline(node_);

  // Keep the sizes of indexes that recent compactions merged (for drawing them), not every
  // index ever seen.
  if (seen_entries_.size() > 4 * kMaxCompactions) {
    QHash<quint64, quint64> kept;
    for (const IndexBar& bar : indexes_) kept.insert(bar.id, bar.entries);
    for (const CompactionMark& set : RecentSets()) {
      for (quint64 input : set.inputs) kept.insert(input, seen_entries_.value(input));
    }
    seen_entries_ = kept;
  }
}

QString CompactionModel::NodeName() const {
  if (node_ < 0 || node_ >= state_->NodeCount()) return {};
  return state_->Node(node_).name;
}

QVector<quint64> CompactionModel::NextFlushInputs() const {
  std::vector<uint64_t> sizes;
  sizes.reserve(size_t(indexes_.size()));
  for (const IndexBar& bar : indexes_) sizes.push_back(bar.entries);
  const size_t count = storage::FlushMergeCount(memtable_capacity_, sizes);
  QVector<quint64> ids;
  for (size_t i = 0; i < count; ++i) ids.push_back(indexes_[qsizetype(i)].id);
  return ids;
}

quint64 CompactionModel::TotalIndexEntries() const {
  quint64 total = 0;
  for (const IndexBar& bar : indexes_) total += bar.entries;
  return total;
}

quint64 CompactionModel::LargestIndexEntries() const {
  quint64 largest = 0;
  for (const IndexBar& bar : indexes_) largest = std::max(largest, bar.entries);
  return largest;
}

double CompactionModel::MemtableFill() const {
  if (memtable_capacity_ == 0) return 0;
  return std::clamp(double(memtable_entries_) / double(memtable_capacity_), 0.0, 1.0);
}

double CompactionModel::WriteAmplification() const {
  return document_writes_ == 0 ? 0.0 : double(index_entry_writes_) / double(document_writes_);
}

double CompactionModel::ObservedWriteAmplification() const {
  if (!has_data_) return -1;
  const auto it = baselines_.constFind(node_);
  if (it == baselines_.constEnd()) return -1;
  const quint64 writes = document_writes_ - it->document_writes;
  if (writes == 0) return -1;
  return double(index_entry_writes_ - it->index_entry_writes) / double(writes);
}

QVector<CompactionMark> CompactionModel::RecentSets() const {
  QVector<CompactionMark> marks;
  const QVector<CompactionEvent>& events = Compactions();
  for (const CompactionEvent& event : events) {
    if (marks.size() >= kDrawnCompactions) break;
    // A plain flush joins nothing; a set merged to nothing has no bar to draw on.
    if (event.inputs.size() < 2 || event.output == 0) continue;
    CompactionMark mark;
    mark.output = event.output;
    mark.inputs = event.inputs;
    // Input sizes as last shown; the in-memory index is what the others do not explain.
    quint64 known = 0;
    for (quint64 input : event.inputs) known += LastSeenEntries(input);
    bool all_known = true;
    for (quint64 input : event.inputs) {
      quint64 entries = LastSeenEntries(input);
      if (input == 0) entries = event.entries_written > known ? event.entries_written - known : 0;
      all_known = all_known && entries > 0;
      mark.shares.push_back(double(entries));
    }
    const double total =
        std::max(1.0, std::accumulate(mark.shares.begin(), mark.shares.end(), 0.0));
    for (double& share : mark.shares) share = all_known ? share / total : 1.0 / event.inputs.size();
    const QString text = event.Describe();
    mark.label = text.left(text.indexOf(QStringLiteral(" \u2192")));
    marks.push_back(mark);
  }
  return marks;
}

bool IndexesAreAdjacent(const QVector<quint64>& order, const QVector<quint64>& ids) {
  if (ids.isEmpty()) return false;
  QVector<int> positions;
  for (quint64 id : ids) {
    const int position = int(order.indexOf(id));
    if (position < 0) return false;
    positions.push_back(position);
  }
  std::sort(positions.begin(), positions.end());
  for (int i = 1; i < positions.size(); ++i) {
    if (positions[i] != positions[i - 1] + 1) return false;  // A gap, or a duplicate.
  }
  return true;
}

bool CompactionModel::AreAdjacent(const QVector<quint64>& ids) const {
  QVector<quint64> order;
  order.reserve(indexes_.size());
  for (const IndexBar& bar : indexes_) order.push_back(bar.id);
  return IndexesAreAdjacent(order, ids);
}

}  // namespace railyard::ui
