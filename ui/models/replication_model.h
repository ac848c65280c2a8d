// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <QVector>

#include "ui/models/cluster_state.h"

namespace railyard::ui {

// "catching up", "tailing", "disconnected", "stopped" ("?" when unset).
QString ReplicaStateName(admin::ReplicaState state);
// "updater", "replica", or empty for a node that reports no docstore role (a client, an older
// node).
QString DocstoreRoleName(admin::DocstoreRole role);

// One row per node that reports a docstore role (Telemetry.replication): its updater and its
// replicas, in ClusterState order. A replica's row shows the updater it follows (named when a
// node of the cluster serves at that address), its state
// (last_error as the tooltip), applied and head positions, lag in documents and seconds, its
// catch-up progress while catching up, apply rate and refetches; an updater's row lists its
// followers as its updater reports them (name, position and lag in the tooltip).
//
// Rows are added or removed (a model reset) only when the set of nodes with a role changes;
// otherwise each frame emits dataChanged for the rows whose node changed. Qt::DisplayRole
// gives text, kSortRole a number (or text; the name's NaturalSortKey) to sort by, kProgressRole the
// catch-up progress (0..1, or -1 when not catching up) for the view's bar.
//
// Thread safety: GUI thread only, like ClusterState.
class ReplicationModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    kName,
    kRole,
    kFollows,  // A replica's updater; an updater's followers.
    kState,
    kApplied,
    kHead,
    kLagDocs,
    kLagSeconds,
    kCatchUp,
    kApplyRate,
    kRefetches,
    kColumnCount
  };
  static constexpr int kSortRole = Qt::UserRole + 1;
  static constexpr int kProgressRole = Qt::UserRole + 2;
  static constexpr int kNodeRole = Qt::UserRole + 3;  // The row's ClusterState node index.

  explicit ReplicationModel(ClusterState* state, QObject* parent = nullptr);
  ClusterState* State() const { return state_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  // The ClusterState node shown in `row`; -1 if none.
  int NodeOfRow(int row) const;
  // The row showing ClusterState node `node`; -1 if it has no docstore role.
  int RowOfNode(int node) const { return static_cast<int>(rows_.indexOf(node)); }

 private:
  void OnFrame(const QVector<int>& changed);
  void Rebuild();
  QVector<int> NodesWithRole() const;

  ClusterState* const state_;
  QVector<int> rows_;  // ClusterState node indexes, in order.
};

}  // namespace railyard::ui
