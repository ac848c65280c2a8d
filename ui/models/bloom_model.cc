// SPDX-License-Identifier: Apache-2.0
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
  connect(state_, &ClusterState::NodesReset, this, [this] {
    scale_max_ = 0;  // A new session.
    SetNode(-1);
  });
}

void BloomModel::SetNode(int node_index) {
  node_ = node_index;
  Recompute();
  Q_EMIT Changed();
}

void BloomModel::GrowScale(int node) {
  if (node < 0 || node >= state_->NodeCount()) return;
  const std::shared_ptr<const admin::Telemetry> telemetry = state_->Node(node).telemetry;
  if (!telemetry) return;
  for (const admin::BloomPage& page : telemetry->storage().bloom_pages()) {
    scale_max_ = std::max(scale_max_, page.usefulness());
  }
}

void BloomModel::OnFrame(const QVector<int>& changed) {
  // Every node's pages widen the scale, shown or not, so switching nodes keeps the colours.
  const double scale_before = scale_max_;
  for (int node : changed) GrowScale(node);
  if (node_ < 0 || !changed.contains(node_)) {
    if (scale_max_ != scale_before) Q_EMIT this->Changed();  // The shown node's colours change.
    return;
  }
  Recompute();
  Q_EMIT this->Changed();
}

void BloomModel::Recompute() {
  rows_.clear();
  columns_ = 0;
  max_usefulness_ = 0;
  cutoff_ = -1;
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
    if (cell.resident) {
      ++resident_pages_;
      cutoff_ = cutoff_ < 0 ? cell.usefulness : std::min(cutoff_, cell.usefulness);
    }
  }
  for (const BloomRow& row : rows_) columns_ = std::max(columns_, int(row.pages.size()));
  scale_max_ = std::max(scale_max_, max_usefulness_);
}

const BloomCell* BloomModel::Cell(int r, int column) const {
  if (r < 0 || r >= rows_.size() || column < 0 || column >= rows_[r].pages.size()) return nullptr;
  const BloomCell& c = rows_[r].pages[column];
  return c.valid ? &c : nullptr;
}

double BloomModel::BudgetUse() const {
  return budget_bytes_ == 0 ? 0.0 : std::min(1.0, double(resident_bytes_) / double(budget_bytes_));
}

QString BloomModel::NotResidentReason(int r, int column) const {
  const BloomCell* c = Cell(r, column);
  if (!c || c->resident) return {};
  if (c->recent_requests <= 0) {
    return tr("never measured: no lookup reached this page lately, so it has no usefulness yet");
  }
  if (c->p_no <= 0) {
    return tr("P(no) is 0: it would never rule a key out, so memory for it would save nothing");
  }
  if (cutoff_ >= 0 && c->usefulness < cutoff_) {
    return tr("below the cut-off: usefulness %1 is under %2, the least useful page kept in memory")
        .arg(c->usefulness, 0, 'f', 2)
        .arg(cutoff_, 0, 'f', 2);
  }
  // Useful enough, yet out: either no room was left when the pager last ranked the pages, or
  // it has not ranked them since this page became useful.
  const quint64 page_bytes = resident_pages_ > 0 ? resident_bytes_ / quint64(resident_pages_) : 0;
  if (budget_bytes_ > 0 && resident_bytes_ + page_bytes >= budget_bytes_) {
    return tr("budget full: the memory budget holds no more pages");
  }
  return tr("not ranked yet: the pager re-ranks pages every few seconds");
}

QString BloomModel::DescribeCell(int r, int column) const {
  const BloomCell* c = Cell(r, column);
  if (!c) return {};
  const QString residence =
      c->resident ? tr("resident: kept in memory, so it can answer \"no\" without a disk read")
                  : tr("not resident (answers \"maybe\", so lookups read the index)\nwhy: %1")
                        .arg(NotResidentReason(r, column));
  return tr("index #%1, page %2\nrecent requests: %3\nP(no): %4 (the chance a lookup that reaches "
            "this page learns the key is not in this index, and skips reading it)\n"
            "usefulness: %5 (recent requests \u00d7 P(no))\n%6")
      .arg(c->index)
      .arg(c->page)
      .arg(c->recent_requests, 0, 'f', 1)
      .arg(c->p_no, 0, 'f', 3)
      .arg(c->usefulness, 0, 'f', 2)
      .arg(residence);
}

}  // namespace railyard::ui
