// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QVector>

#include "ui/models/cluster_state.h"

namespace railyard::ui {

// One row per node of the cluster: the overview table that has to fit 100 nodes.
//
// Per frame it emits dataChanged for the cells whose text changed in rows whose telemetry
// changed (whole rows where the name, health or kind moved, and the age column of rows whose
// shown age, in whole seconds, changed), so 300 nodes at 10 Hz repaint only what changed. A
// proxy sorting by a figure re-sorts a row when the figure's text changes.
// Qt::DisplayRole gives text (the state column says why a node is not live: "token refused",
// "unreachable: <reason>", "stale since 12:03:04"), kSortRole a number (or the name's
// NaturalSortKey, so backend-2 sorts before backend-10) to sort by, Qt::DecorationRole on the name
// and state columns the health colour, Qt::ToolTipRole the node's address, state, reason and since
// when, and Qt::ForegroundRole greys the last-known figures of a node that is not live. kLag sorts
// replicas by lag in documents, after updaters (-1) and nodes without a role (-2).
//
// A client process (role client: `railyardctl load --admin-listen`, the demo's clients) is a row
// of its own kind, in italics: its rate, errors, rejections and retries are the calls it made
// (ClientThroughput), its latency goes in the client p99 column; server rows give what they
// served and the server-side p99. A row with no traffic (its rate shows as 0) shows "—" for its
// p99 rather than the last one measured.
//
// Thread safety: GUI thread only, like ClusterState.
class OverviewModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    kName,
    kState,
    kRole,
    kStoreRole,  // Docstore replication role: updater or replica.
    kLag,        // A replica's lag ("120 docs, 0.4 s"); an updater's follower count.
    kRequests,
    kErrors,
    kRejections,  // POOL_EXHAUSTED and other refusals before a handler (or a client's own).
    kRetries,     // A client's retries.
    kP99,         // Server-side: handler time.
    kClientP99,   // Client-side: from the call to its answer, retries included.
    kSlots,
    kIndexes,
    kBloom,
    kAge,
    kColumnCount
  };
  static constexpr int kSortRole = Qt::UserRole + 1;
  static constexpr int kHealthRole = Qt::UserRole + 2;  // NodeHealth as int.

  explicit OverviewModel(ClusterState* state, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  // Figures of one node as the table shows them (also used by the headless summary line).
  struct Row {
    bool client = false;  // Role client: the figures are its own calls (client_*).
    // Served by this process; 0 for a client, so a sum over rows counts each request once.
    double requests_per_s = 0;
    double errors_per_s = 0;
    double rejections_per_s = 0;
    double p99_ms = 0;
    // Of requests_per_s, those p99_ms is of (long-polls apart): below kIdleBelowPerS, "—".
    double latency_requests_per_s = 0;
    // A client's calls, over all its pools.
    double client_requests_per_s = 0;
    double client_errors_per_s = 0;
    double client_rejections_per_s = 0;
    double client_retries_per_s = 0;
    double client_p99_ms = 0;
    int slots = 0;
    int indexes = 0;
    // False for a snapshot that stands for a time bucket (a flight recorder's 24-hour part, a
    // Prometheus history): it keeps no slot or index lists, so their counts are not known.
    bool lists_kept = true;
    double bloom_use = 0;  // Resident bytes / budget, 0..1 (0 without a budget).
    // The process reports a store: a node once its store is open; never a service of one's own
    // (node::ServiceAdmin). Without one, Indexes and Bloom budget are blank, not 0.
    bool store = false;
    qint64 age_ms = -1;  // -1: never heard from.
  };
  static Row RowOf(const NodeView& node, qint64 now_ms);
  // Below this many requests per second (what Req/s shows as 0) a row has no current latency.
  static constexpr double kIdleBelowPerS = 0.5;
  // The state cell's text and the row's tooltip.
  static QString StateText(const NodeView& node);
  static QString ToolTip(const NodeView& node);

 private:
  void OnFrame(const QVector<int>& changed);
  void OnNodeAdded(int index);
  void OnReset();

  ClusterState* const state_;
  int rows_ = 0;
  QVector<qint64> shown_age_s_;  // Per row: the age last shown, in whole seconds.
  // Per row: the name and health last shown. The name column (which the node list and the node
  // selector show) is signalled only when they change, so those widgets repaint only then.
  QVector<QPair<QString, int>> shown_identity_;
  // Per row: client (2), server (1) or unknown (0) as last shown; -1 never. Sets the row's font.
  QVector<int> shown_kind_;
  // Per row and column (row * kColumnCount + column): the text last shown, so a frame signals
  // only the cells whose text moved.
  QVector<QString> shown_text_;
};

// Sorting by kSortRole and filtering by a name substring and a health.
class OverviewFilterModel : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit OverviewFilterModel(QObject* parent = nullptr);
  void SetNameFilter(const QString& text);
  // -1: every health.
  void SetHealthFilter(int health);

 protected:
  bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;

 private:
  QString name_;
  int health_ = -1;
};

}  // namespace railyard::ui
