#include "ui/models/compaction_model.h"

#include <algorithm>

namespace railyard::ui {

CompactionModel::CompactionModel(ClusterState* state, QObject* parent)
    : QObject(parent), state_(state), history_(new CompactionHistoryModel(this)) {
  connect(state_, &ClusterState::FrameApplied, this, &CompactionModel::OnFrame);
  connect(state_, &ClusterState::NodesReset, this, [this] {
    node_ = -1;
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
  has_baseline_ = false;
  base_index_entry_writes_ = base_document_writes_ = 0;
  cache_.Reset();
}

void CompactionModel::OnFrame(const QVector<int>& changed) {
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
  }
  memtable_entries_ = storage.memtable_entries();
  memtable_capacity_ = storage.memtable_capacity();

  history_->AddReported(storage);
  cache_.Update(*telemetry);

  index_entry_writes_ = storage.index_entry_writes();
  document_writes_ = storage.writes() + storage.deletes();
  if (!has_baseline_ || document_writes_ < base_document_writes_ ||
      index_entry_writes_ < base_index_entry_writes_) {
    has_baseline_ = true;  // First sight, or the node restarted: count from here.
    base_index_entry_writes_ = index_entry_writes_;
    base_document_writes_ = document_writes_;
  }
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
  const quint64 writes = document_writes_ - base_document_writes_;
  if (!has_baseline_ || writes == 0) return -1;
  return double(index_entry_writes_ - base_index_entry_writes_) / double(writes);
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
