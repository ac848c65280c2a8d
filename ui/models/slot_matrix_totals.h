// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QAbstractTableModel>

namespace railyard::ui {

class SlotMatrixModel;

// The slot matrix's totals row group, column for column with the matrix (so a view can sit
// under it with the same widths): per server, the slots in use, the highest slot held and the
// share of those connections that are busy (with the server's mark, "lame duck" or "unreachable",
// where it has one); under the client columns, the sums of pools, busy connections and rates.
//
// Thread safety: GUI thread only.
class SlotMatrixTotalsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Row { kInUse, kHighest, kBusyShare, kRowCount };

  explicit SlotMatrixTotalsModel(SlotMatrixModel* matrix, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  QVariant ClientColumnTotal(int column, int row) const;

  SlotMatrixModel* const matrix_;
  int columns_ = 0;  // The matrix's, as of the last reset.
};

}  // namespace railyard::ui
