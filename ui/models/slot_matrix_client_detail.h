// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QAbstractTableModel>
#include <QVector>

#include "ui/models/slot_matrix_model.h"

namespace railyard::ui {

// The connections of one client, best slot first: server, slot, busy, requests, connected since.
// It follows the matrix: every frame refreshes the rows, and a client that leaves the matrix (a
// replay seek, a client forgotten) leaves it with no client, so rows never outlive their client.
//
// Thread safety: GUI thread only.
class ClientDetailModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { kServer, kSlot, kBusy, kRequests, kSince, kColumnCount };
  ClientDetailModel(SlotMatrixModel* matrix, ClusterState* state, QObject* parent = nullptr);

  // 0: no client.
  void SetClientId(quint64 id);
  quint64 ClientId() const { return id_; }
  // The connections listed and how many of them are busy: what the rows show, counted.
  int BusyRows() const;
  // One line over the rows: "client: pool 8, 6 connected, 2 busy", or an invitation to select a
  // client when there is none. Its figures are the rows' own, so they always agree.
  QString Summary() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 Q_SIGNALS:
  // After the rows were recomputed (each frame, each selection, each matrix reset).
  void Refreshed();

 private:
  struct Row {
    int server = 0;
    SlotMatrixModel::Slot slot;
  };
  void Refresh();

  SlotMatrixModel* const matrix_;
  ClusterState* const state_;
  quint64 id_ = 0;
  QVector<Row> rows_;
};

}  // namespace railyard::ui
