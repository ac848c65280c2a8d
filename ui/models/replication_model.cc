// SPDX-License-Identifier: Apache-2.0
#include "ui/models/replication_model.h"

#include <QLocale>
#include <QStringList>
#include <algorithm>

#include "core/cluster/replication_names.h"
#include "ui/models/natural_order.h"
#include "ui/models/palette.h"

namespace railyard::ui {

QString ReplicaStateName(admin::ReplicaState state) {
  if (state == admin::REPLICA_STATE_UNSPECIFIED) return QStringLiteral("?");
  return QString::fromUtf8(cluster::ReplicaStateName(state));
}

QString DocstoreRoleName(admin::DocstoreRole role) {
  if (role == admin::DOCSTORE_ROLE_UNSPECIFIED) return {};
  return QString::fromUtf8(cluster::DocstoreRoleName(role));
}

namespace {

bool HasRole(const NodeView& node) {
  return node.telemetry && node.telemetry->replication().role() != admin::DOCSTORE_ROLE_UNSPECIFIED;
}

// Past this many followers the cell names this many, silent ones first, and counts the rest (the
// tooltip lists them all): 47 names made the column so wide that the table cut the positions
// beside it to "291,...".
constexpr int kFollowersNamed = 3;

QString FollowersText(const admin::Replication& r) {
  if (r.followers_size() == 0) return QObject::tr("no followers");
  QStringList names, silent, heard;  // All in the updater's order; the silent; the others.
  for (const admin::Follower& f : r.followers()) {
    QString name = QString::fromStdString(f.name().empty() ? f.address() : f.name());
    // The updater has not heard from it within the follow silence: its lag is unknown.
    if (!f.lag_known()) name = QObject::tr("%1 (silent)").arg(name);
    names << name;
    (f.lag_known() ? heard : silent) << name;
  }
  if (names.size() <= kFollowersNamed) {
    return QObject::tr("followers: %1").arg(names.join(QStringLiteral(", ")));
  }
  const QStringList named = (silent + heard).mid(0, kFollowersNamed);
  QString text = QObject::tr("%n followers: ", nullptr, r.followers_size()) +
                 named.join(QStringLiteral(", ")) +
                 QObject::tr(" and %1 more").arg(r.followers_size() - named.size());
  if (silent.size() > kFollowersNamed) {
    text += QObject::tr(" (%n silent in all)", nullptr, int(silent.size()));
  }
  return text;
}

QString FollowersTooltip(const admin::Replication& r) {
  QStringList lines;
  for (const admin::Follower& f : r.followers()) {
    if (!f.lag_known()) {  // Silent: it stopped fetching, so how far behind it is is unknown.
      lines << QObject::tr("%1 (%2): position %3, lag unknown, %4")
                   .arg(QString::fromStdString(f.name()), QString::fromStdString(f.address()))
                   .arg(f.position())
                   .arg(QString::fromStdString(f.state()));
      continue;
    }
    lines << QObject::tr("%1 (%2): position %3, %4 docs / %5 s behind, %6")
                 .arg(QString::fromStdString(f.name()), QString::fromStdString(f.address()))
                 .arg(f.position())
                 .arg(f.lag_docs())
                 .arg(f.lag_seconds(), 0, 'f', 1)
                 .arg(QString::fromStdString(f.state()));
  }
  return lines.join(QLatin1Char('\n'));
}

// A replica's updater as "name (host:port)" when a node of the cluster serves at that address,
// else the address alone.
QString UpdaterText(const ClusterState& state, const std::string& updater) {
  const QString address = QString::fromStdString(updater);
  for (int i = 0; i < state.NodeCount(); ++i) {
    const NodeView& node = state.Node(i);
    if (node.telemetry && !updater.empty() && node.telemetry->service_address() == updater) {
      return QStringLiteral("%1 (%2)").arg(node.name, address);
    }
  }
  return address;
}

// What a figure the node itself reports reads while the node is not live (docs/figures.md).
QString UnknownWhileNotLive(const NodeView& node) {
  return QObject::tr("unknown (node %1)").arg(NodeHealthName(node.health));
}

}  // namespace

ReplicationModel::ReplicationModel(ClusterState* state, QObject* parent)
    : QAbstractTableModel(parent), state_(state) {
  rows_ = NodesWithRole();
  connect(state_, &ClusterState::FrameApplied, this, &ReplicationModel::OnFrame);
  connect(state_, &ClusterState::NodesReset, this, &ReplicationModel::Rebuild);
}

int ReplicationModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int ReplicationModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

int ReplicationModel::NodeOfRow(int row) const {
  return row >= 0 && row < rows_.size() ? rows_[row] : -1;
}

QVariant ReplicationModel::data(const QModelIndex& index, int role) const {
  const int node_index = index.isValid() ? NodeOfRow(index.row()) : -1;
  if (node_index < 0 || node_index >= state_->NodeCount()) return {};
  const NodeView& node = state_->Node(node_index);
  if (!node.telemetry) return {};
  const admin::Replication& r = node.telemetry->replication();
  const bool replica = r.role() == admin::DOCSTORE_REPLICA;
  // A node that is not answering: what it last said about its replication is not its state now
  // (docs/figures.md, "Replica state").
  const bool live = IsLive(node.health);
  const bool lag_known = cluster::ReplicaLagKnown(r, live);
  const bool catching_up = live && replica && r.state() == admin::REPLICA_CATCHING_UP;
  const int column = index.column();

  if (role == kNodeRole) return node_index;
  if (role == kProgressRole) {
    return column == kCatchUp && catching_up ? r.catch_up_progress() : -1.0;
  }
  if (role == Qt::ToolTipRole) {
    if (column == kFollows && !replica && !live) {
      return tr("The node is %1: who follows it now is unknown. It last listed: %2")
          .arg(NodeHealthName(node.health), FollowersText(r));
    }
    if (column == kFollows && !replica) return FollowersTooltip(r);
    if (column == kState && replica && !live) {
      return tr("The node is %1%2: its replication state is unknown. It last said \"%3\" at %4.")
          .arg(NodeHealthName(node.health),
               node.last_error.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(node.last_error),
               ReplicaStateName(r.state()), ClockText(node.updated_ms));
    }
    if (column == kState && replica && !r.last_error().empty()) {
      return QString::fromStdString(r.last_error());
    }
    return {};
  }
  if (role == Qt::DecorationRole && column == kState && replica) {
    return live ? ReplicaStateColor(r.state()) : HealthColor(NodeHealth::kStale);
  }
  if (role == Qt::ForegroundRole && !live && column > kFollows) {
    return HealthColor(NodeHealth::kStale);  // Last known, not news.
  }
  if (role == Qt::TextAlignmentRole && column >= kApplied) {
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role != Qt::DisplayRole && role != kSortRole) return {};
  const bool sort = role == kSortRole;
  const QLocale locale;
  switch (column) {
    case kName:
      return sort ? QVariant(NaturalSortKey(node.name)) : QVariant(node.name);
    case kRole:
      return DocstoreRoleName(r.role());
    case kFollows:
      if (replica) return UpdaterText(*state_, r.updater());
      // A silent updater's last list is not who follows it now (it listed both replicas of a
      // killed updater).
      if (!live) return sort ? QVariant(-1) : QVariant(UnknownWhileNotLive(node));
      return sort ? QVariant(r.followers_size()) : QVariant(FollowersText(r));
    case kState:
      if (!replica) return sort ? QVariant(-1) : QVariant(QString());
      if (!live) return sort ? QVariant(100) : QVariant(UnknownWhileNotLive(node));
      return sort ? QVariant(static_cast<int>(r.state())) : QVariant(ReplicaStateName(r.state()));
    case kApplied:
      return sort ? QVariant(qulonglong(r.applied_position()))
                  : QVariant(locale.toString(qulonglong(r.applied_position())));
    case kHead:
      return sort ? QVariant(qulonglong(r.head_position()))
                  : QVariant(locale.toString(qulonglong(r.head_position())));
    case kLagDocs:
      if (!replica) return sort ? QVariant(-1.0) : QVariant(QString());
      if (!lag_known) return sort ? QVariant(1e18) : QVariant(tr("unknown"));
      return sort ? QVariant(double(r.lag_docs()))
                  : QVariant(locale.toString(qulonglong(r.lag_docs())));
    case kLagSeconds:
      if (!replica) return sort ? QVariant(-1.0) : QVariant(QString());
      if (!lag_known) return sort ? QVariant(1e18) : QVariant(tr("unknown"));
      return sort ? QVariant(r.lag_seconds()) : QVariant(QString::number(r.lag_seconds(), 'f', 1));
    case kCatchUp:
      if (sort) return catching_up ? r.catch_up_progress() : (replica ? 1.0 : -1.0);
      return catching_up ? QStringLiteral("%1 %").arg(r.catch_up_progress() * 100, 0, 'f', 0)
                         : QString();
    case kApplyRate:
      if (!replica) return sort ? QVariant(-1.0) : QVariant(QString());
      if (!live) return sort ? QVariant(-1.0) : QVariant(QStringLiteral("?"));
      return sort ? QVariant(r.apply_docs_per_s())
                  : QVariant(QString::number(r.apply_docs_per_s(), 'f', 0));
    case kRefetches:
      if (!replica) return sort ? QVariant(-1.0) : QVariant(QString());
      return sort ? QVariant(double(r.refetches())) : QVariant(QString::number(r.refetches()));
  }
  return {};
}

QVariant ReplicationModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case kApplied:
        return tr("Queue position (bytes across segment files) this node has applied");
      case kHead:
        return tr("The updater's queue position (a replica: as last heard from its updater)");
      case kLagDocs:
        return tr(
            "Documents between what this replica applied and the head it knows; unknown "
            "without a live connection to its updater");
      case kLagSeconds:
        return tr(
            "Age of the oldest write this replica has not applied (0 when caught up); "
            "unknown without a live connection to its updater");
      case kCatchUp:
        return tr("While catching up: the share of what was behind at the start that is applied");
      case kRefetches:
        return tr("Blocks fetched again after failing their checksum");
    }
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case kName:
      return tr("Node");
    case kRole:
      return tr("Role");
    case kFollows:
      return tr("Updater / followers");
    case kState:
      return tr("State");
    case kApplied:
      return tr("Applied");
    case kHead:
      return tr("Head");
    case kLagDocs:
      return tr("Lag docs");
    case kLagSeconds:
      return tr("Lag s");
    case kCatchUp:
      return tr("Catch-up");
    case kApplyRate:
      return tr("Apply docs/s");
    case kRefetches:
      return tr("Refetches");
  }
  return {};
}

QVector<int> ReplicationModel::NodesWithRole() const {
  QVector<int> nodes;
  for (int i = 0; i < state_->NodeCount(); ++i) {
    if (HasRole(state_->Node(i))) nodes.push_back(i);
  }
  return nodes;
}

void ReplicationModel::Rebuild() {
  beginResetModel();
  rows_ = NodesWithRole();
  endResetModel();
}

void ReplicationModel::OnFrame(const QVector<int>& changed) {
  // Membership changes rarely (a node's first telemetry, a role change): a reset then; otherwise
  // only the changed rows.
  if (NodesWithRole() != rows_) {
    Rebuild();
    return;
  }
  // One signal over the rows that changed: per row, the sorting proxy in front of the table
  // re-sorted and the view's summary was counted again once for each (47 times a frame at 47
  // replicas).
  int first = -1, last = -1;
  for (int node : changed) {
    const int row = RowOfNode(node);
    if (row < 0) continue;
    first = first < 0 ? row : std::min(first, row);
    last = std::max(last, row);
  }
  if (first >= 0) Q_EMIT dataChanged(index(first, 0), index(last, kColumnCount - 1));
}

}  // namespace railyard::ui
