#include "ui/models/bloom_model.h"

#include <QHash>
#include <algorithm>

namespace railyard::ui {

int BloomRow::ResidentPages() const {
  return int(std::count_if(pages.begin(), pages.end(),
                           [](const BloomCell& c) { return c.valid && c.resident; }));
}

BloomModel::BloomModel(ClusterState* state, QObject* parent) : QObject(parent), state_(state) {
  connect(state_, &ClusterState::FrameApplied, this, &BloomModel::OnFrame);
  connect(state_, &ClusterState::NodesReset, this, [this] { SetNode(-1); });
}

void BloomModel::SetNode(int node_index) {
  node_ = node_index;
  Recompute();
  Q_EMIT Changed();
}

void BloomModel::OnFrame(const QVector<int>& changed) {
  if (node_ < 0 || !changed.contains(node_)) return;
  Recompute();
  Q_EMIT this->Changed();
}

void BloomModel::Recompute() {
  rows_.clear();
  columns_ = 0;
  max_usefulness_ = 0;
  budget_bytes_ = resident_bytes_ = 0;
  resident_pages_ = total_pages_ = 0;
  has_data_ = false;
  if (node_ < 0 || node_ >= state_->NodeCount()) return;
  const std::shared_ptr<const admin::Telemetry> telemetry = state_->Node(node_).telemetry;
  if (!telemetry) return;
  const admin::StorageStats& storage = telemetry->storage();
  has_data_ = true;
  budget_bytes_ = storage.bloom_budget_bytes();
  resident_bytes_ = storage.bloom_resident_bytes();

  QHash<quint64, int> row_of;
  for (const admin::IndexInfo& info : storage.indexes()) {
    BloomRow row;
    row.index = info.id();
    row.entries = info.entries();
    row.p_no = info.p_no();
    row.measured_false_positive_rate = info.measured_false_positive_rate();
    row.pages.resize(int(info.bloom_pages()));
    row_of.insert(row.index, int(rows_.size()));
    rows_.push_back(std::move(row));
  }
  for (const admin::BloomPage& page : storage.bloom_pages()) {
    auto it = row_of.find(page.index());
    if (it == row_of.end()) {
      // A page of an index the stats listed in a different snapshot: show it rather than lose it.
      BloomRow row;
      row.index = page.index();
      row.p_no = page.p_no();
      it = row_of.insert(row.index, int(rows_.size()));
      rows_.push_back(std::move(row));
    }
    BloomRow& row = rows_[it.value()];
    if (int(page.page()) >= row.pages.size()) row.pages.resize(int(page.page()) + 1);
    BloomCell& cell = row.pages[int(page.page())];
    cell.valid = true;
    cell.index = page.index();
    cell.page = page.page();
    cell.recent_requests = page.recent_requests();
    cell.p_no = page.p_no();
    cell.usefulness = page.usefulness();
    cell.resident = page.resident();
    max_usefulness_ = std::max(max_usefulness_, cell.usefulness);
    ++total_pages_;
    if (cell.resident) ++resident_pages_;
  }
  for (const BloomRow& row : rows_) columns_ = std::max(columns_, int(row.pages.size()));
}

const BloomCell* BloomModel::Cell(int r, int column) const {
  if (r < 0 || r >= rows_.size() || column < 0 || column >= rows_[r].pages.size()) return nullptr;
  const BloomCell& c = rows_[r].pages[column];
  return c.valid ? &c : nullptr;
}

double BloomModel::BudgetUse() const {
  return budget_bytes_ == 0 ? 0.0 : std::min(1.0, double(resident_bytes_) / double(budget_bytes_));
}

QString BloomModel::DescribeCell(int r, int column) const {
  const BloomCell* c = Cell(r, column);
  if (!c) return {};
  return QStringLiteral("index #%1, page %2\nrecent requests: %3\nP(no): %4\nusefulness: %5\n%6")
      .arg(c->index)
      .arg(c->page)
      .arg(c->recent_requests, 0, 'f', 1)
      .arg(c->p_no, 0, 'f', 3)
      .arg(c->usefulness, 0, 'f', 2)
      .arg(c->resident ? QStringLiteral("resident (answers no in memory)")
                       : QStringLiteral("not resident (answers maybe)"));
}

}  // namespace railyard::ui
