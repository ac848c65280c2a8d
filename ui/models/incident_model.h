// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <QVector>

#include "ui/models/throughput_model.h"

namespace railyard::ui {

// The cluster's incident timeline: one list, newest first, of what happened to any node as the
// throughput model collected it (ThroughputModel::Events): down and up, restarts, lame duck
// entered and left, the drains, undrains, compactions and flushes anyone ran (each node's
// telemetry carries its recent commands with who asked), and alerts firing and resolving
// (AlertModel's marks). It keeps what the throughput model keeps (a day), live and in replay
// alike; a replay seek rebuilds it as it rebuilds the charts (the chosen window before the
// seek point).
//
// Thread safety: GUI thread only.
class IncidentModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { kTime, kNode, kWhat, kDetail, kColumns };
  // The event's cluster time, for a view that jumps there.
  static constexpr int kTimeRole = Qt::UserRole + 1;

  explicit IncidentModel(ThroughputModel* throughput, QObject* parent = nullptr);

  const QVector<ThroughputEvent>& Events() const { return events_; }  // Newest first.
  // Writes the list as CSV, oldest first: time_unix_ms, time (local), node, what, detail.
  bool ExportCsv(const QString& path, QString* error) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  // Rebuilds the list if the throughput model's events changed.
  void Refresh();
  QString NodeName(int node) const;

  ThroughputModel* throughput_;
  QVector<ThroughputEvent> events_;
  quint64 revision_ = ~quint64{0};
};

}  // namespace railyard::ui
