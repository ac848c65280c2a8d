// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QSortFilterProxyModel>

namespace railyard::ui {

class SlotMatrixModel;

// The slot matrix's clients in the order the operator picks: by name (natural order, the
// matrix's own), by slots held (most first) or by busy share (busiest first); ties keep name
// order. Rows move as their figures change (dynamic sorting on the pool column, which the matrix
// signals whenever a client's slots or busy flags change). Columns are the matrix's.
//
// Thread safety: GUI thread only.
class SlotMatrixSortModel : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  enum class Order { kName, kSlots, kBusyShare };

  explicit SlotMatrixSortModel(SlotMatrixModel* matrix, QObject* parent = nullptr);

  void SetOrder(Order order);
  Order order() const { return order_; }

 protected:
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

 private:
  SlotMatrixModel* const matrix_;
  Order order_ = Order::kName;
};

}  // namespace railyard::ui
