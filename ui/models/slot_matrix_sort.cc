// SPDX-License-Identifier: Apache-2.0
#include "ui/models/slot_matrix_sort.h"

#include <algorithm>

#include "ui/models/slot_matrix_model.h"

namespace railyard::ui {

SlotMatrixSortModel::SlotMatrixSortModel(SlotMatrixModel* matrix, QObject* parent)
    : QSortFilterProxyModel(parent), matrix_(matrix) {
  setSourceModel(matrix_);
  setDynamicSortFilter(true);
  sort(SlotMatrixModel::kPoolColumn, Qt::AscendingOrder);
}

void SlotMatrixSortModel::SetOrder(Order order) {
  if (order == order_) return;
  order_ = order;
  invalidate();  // Sorts again by the new order.
}

bool SlotMatrixSortModel::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  // The matrix keeps its rows in natural name order: its row order is the name order.
  const int a = left.row(), b = right.row();
  const SlotMatrixModel::Client& ca = matrix_->client(a);
  const SlotMatrixModel::Client& cb = matrix_->client(b);
  switch (order_) {
    case Order::kName:
      break;
    case Order::kSlots:
      if (ca.connections != cb.connections) return ca.connections > cb.connections;
      break;
    case Order::kBusyShare: {
      // busy / connections, compared without dividing; a client with no slots counts as 0.
      const qint64 lhs = qint64(ca.busy) * std::max(1, cb.connections);
      const qint64 rhs = qint64(cb.busy) * std::max(1, ca.connections);
      if (lhs != rhs) return lhs > rhs;
      break;
    }
  }
  return a < b;
}

}  // namespace railyard::ui
