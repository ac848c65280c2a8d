// SPDX-License-Identifier: Apache-2.0
#include "ui/models/overview_model.h"

#include <QDateTime>
#include <QFont>
#include <algorithm>
#include <limits>

#include "core/cluster/replication_names.h"
#include "core/cluster/request_figures.h"
#include "ui/models/natural_order.h"
#include "ui/models/palette.h"
#include "ui/models/replication_model.h"

namespace railyard::ui {

OverviewModel::OverviewModel(ClusterState* state, QObject* parent)
    : QAbstractTableModel(parent), state_(state) {
  rows_ = state_->NodeCount();
  shown_age_s_.fill(-1, rows_);
  shown_identity_.fill({QString(), -1}, rows_);
  shown_kind_.fill(-1, rows_);
  shown_text_.fill(QString(), rows_ * kColumnCount);
  connect(state_, &ClusterState::FrameApplied, this, &OverviewModel::OnFrame);
  connect(state_, &ClusterState::NodeAdded, this, &OverviewModel::OnNodeAdded);
  connect(state_, &ClusterState::NodesReset, this, &OverviewModel::OnReset);
}

int OverviewModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : rows_;
}

int OverviewModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

OverviewModel::Row OverviewModel::RowOf(const NodeView& node, qint64 now_ms) {
  Row row;
  if (node.updated_ms > 0) row.age_ms = std::max<qint64>(0, now_ms - node.updated_ms);
  if (!node.telemetry) return row;
  const admin::Telemetry& t = *node.telemetry;
  row.client = !ServesRequests(t);
  if (row.client) {
    const admin::ClientThroughput calls = ClientFiguresOf(t);
    row.client_requests_per_s = calls.requests_per_s();
    row.client_errors_per_s = calls.errors_per_s();
    row.client_rejections_per_s = calls.rejections_per_s();
    row.client_retries_per_s = calls.retries_per_s();
    row.client_p99_ms = calls.p99_us() / 1000.0;
  } else {
    row.requests_per_s = t.throughput().requests_per_s();
    row.errors_per_s = t.throughput().errors_per_s();
    row.rejections_per_s = t.throughput().rejections_per_s();
    row.p99_ms = cluster::RequestP99Us(t.throughput()) / 1000.0;
    row.latency_requests_per_s = cluster::LatencyRequestsPerS(t.throughput());
  }
  row.slots = t.slots_size();
  row.store = t.has_storage();
  row.indexes = t.storage().indexes_size();
  row.lists_kept = !t.has_downsampled();
  if (t.storage().bloom_budget_bytes() > 0) {
    row.bloom_use =
        double(t.storage().bloom_resident_bytes()) / double(t.storage().bloom_budget_bytes());
  }
  return row;
}

namespace {

// A count that a downsampled snapshot does not keep (OverviewModel::Row::lists_kept).
const QString kNotKept = QStringLiteral("n/a");

QString AgeText(qint64 age_ms) {
  if (age_ms < 0) return QStringLiteral("never");
  if (age_ms < 1000) return QStringLiteral("< 1 s");
  if (age_ms < 120000) return QStringLiteral("%1 s").arg(age_ms / 1000);
  return QStringLiteral("%1 min").arg(age_ms / 60000);
}

QString RoleName(admin::Role role) {
  switch (role) {
    case admin::ROLE_SERVER:
      return QStringLiteral("server");
    case admin::ROLE_CLIENT:
      return QStringLiteral("client");
    case admin::ROLE_BOTH:
      return QStringLiteral("server+client");
    default:
      return QStringLiteral("?");
  }
}

QString LagText(const admin::Replication& r, bool live) {
  if (r.role() == admin::DOCSTORE_UPDATER) {
    const int n = r.followers_size();
    return n == 1 ? QObject::tr("1 follower") : QObject::tr("%1 followers").arg(n);
  }
  if (r.role() != admin::DOCSTORE_REPLICA) return {};
  if (!cluster::ReplicaLagKnown(r, live)) return QObject::tr("unknown");
  return QObject::tr("%1 docs, %2 s").arg(r.lag_docs()).arg(r.lag_seconds(), 0, 'f', 1);
}

double LagSortKey(const admin::Replication& r, bool live) {
  if (r.role() == admin::DOCSTORE_UPDATER) return -1;
  if (r.role() != admin::DOCSTORE_REPLICA) return -2;
  if (!cluster::ReplicaLagKnown(r, live)) return 1e18;  // Unknown sorts past every known lag.
  return double(r.lag_docs());
}

// A rate cell, and a latency cell that says "—" when there was no traffic to measure.
QVariant RateCell(bool sort, double per_s, int decimals) {
  if (sort) return per_s;
  return QString::number(per_s, 'f', decimals);
}

QVariant LatencyCell(bool sort, double ms, double requests_per_s) {
  const bool idle = requests_per_s < OverviewModel::kIdleBelowPerS;
  if (sort) return idle ? -1.0 : ms;
  return idle ? QStringLiteral("\u2014") : QString::number(ms, 'f', 2);
}

}  // namespace

QString OverviewModel::StateText(const NodeView& node) {
  switch (node.health) {
    case NodeHealth::kUnreachable:
      return node.last_error.isEmpty() ? NodeHealthName(node.health)
                                       : tr("unreachable: %1").arg(node.last_error);
    case NodeHealth::kStale:
      return node.down_since_ms > 0 ? tr("stale since %1").arg(ClockText(node.down_since_ms))
                                    : NodeHealthName(node.health);
    default:
      return NodeHealthName(node.health);
  }
}

QString OverviewModel::ToolTip(const NodeView& node) {
  QStringList lines;
  lines
      << (node.name == node.admin_address
              ? tr("%1: %2").arg(node.admin_address, NodeHealthName(node.health))
              : tr("%1 at %2: %3").arg(node.name, node.admin_address, NodeHealthName(node.health)));
  if (!node.last_error.isEmpty()) lines << node.last_error;
  if (node.health == NodeHealth::kTokenRefused) {
    lines << tr("Not polled with this token any more; Node > Edit token gives another.");
  }
  if (node.down_since_ms > 0) lines << tr("Since %1").arg(ClockText(node.down_since_ms));
  if (!IsLive(node.health) && node.telemetry) {
    lines << tr("Figures (grey) as last known at %1").arg(ClockText(node.updated_ms));
  }
  return lines.join(QLatin1Char('\n'));
}

QVariant OverviewModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rows_ || index.row() >= state_->NodeCount()) return {};
  const NodeView& node = state_->Node(index.row());
  if (role == kHealthRole) return static_cast<int>(node.health);
  if (role == Qt::ToolTipRole) return ToolTip(node);
  if (role == Qt::ForegroundRole) {
    // Last-known figures of a node that is not live are not news: grey, not black.
    if (index.column() >= kRole && node.telemetry && !IsLive(node.health)) {
      return HealthColor(NodeHealth::kStale);
    }
    return {};
  }
  if (role == Qt::FontRole) {
    if (!node.telemetry || ServesRequests(*node.telemetry)) return {};
    QFont font;  // A client's row: its figures are calls it made, not requests it served.
    font.setItalic(true);
    return font;
  }
  if (role == Qt::DecorationRole && (index.column() == kState || index.column() == kName)) {
    return HealthColor(node.health);
  }
  if (role == Qt::TextAlignmentRole && index.column() >= kRequests) {
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role != Qt::DisplayRole && role != kSortRole) return {};
  const Row row = RowOf(node, state_->NowMs());
  const bool sort = role == kSortRole;
  const bool known = node.telemetry != nullptr;
  switch (index.column()) {
    case kName:
      return sort ? QVariant(NaturalSortKey(node.name)) : QVariant(node.name);
    case kState:
      return sort ? QVariant(static_cast<int>(node.health)) : QVariant(StateText(node));
    case kRole:
      return known ? RoleName(node.telemetry->role()) : QString();
    case kStoreRole:
      return known ? DocstoreRoleName(node.telemetry->replication().role()) : QString();
    case kLag:
      if (sort)
        return known ? LagSortKey(node.telemetry->replication(), IsLive(node.health)) : -2.0;
      return known ? LagText(node.telemetry->replication(), IsLive(node.health)) : QString();
    case kRequests:
      if (!known && !sort) return QString();
      return RateCell(sort, row.client ? row.client_requests_per_s : row.requests_per_s, 0);
    case kErrors:
      if (!known && !sort) return QString();
      return RateCell(sort, row.client ? row.client_errors_per_s : row.errors_per_s, 1);
    case kRejections:
      if (!known && !sort) return QString();
      return RateCell(sort, row.client ? row.client_rejections_per_s : row.rejections_per_s, 1);
    case kRetries:
      if (!row.client) return sort ? QVariant(-1.0) : QVariant(QString());
      return RateCell(sort, row.client_retries_per_s, 1);
    case kP99:
      if (!known || row.client) return sort ? QVariant(-2.0) : QVariant(QString());
      return LatencyCell(sort, row.p99_ms, row.latency_requests_per_s);
    case kClientP99:
      if (!row.client) return sort ? QVariant(-2.0) : QVariant(QString());
      return LatencyCell(sort, row.client_p99_ms, row.client_requests_per_s);
    case kSlots:
      // A client holds no server slots and has no store: nothing to show, not 0 (C16).
      if (row.client) return sort ? QVariant(-1) : QVariant(QString());
      if (!row.lists_kept) return sort ? QVariant(-1) : QVariant(kNotKept);
      if (sort) return row.slots;
      return known ? QString::number(row.slots) : QString();
    case kIndexes:
      if (row.client || !row.store) return sort ? QVariant(-1) : QVariant(QString());
      if (!row.lists_kept) return sort ? QVariant(-1) : QVariant(kNotKept);
      if (sort) return row.indexes;
      return known ? QString::number(row.indexes) : QString();
    case kBloom:
      if (row.client || !row.store) return sort ? QVariant(-1.0) : QVariant(QString());
      if (sort) return row.bloom_use;
      return known ? QStringLiteral("%1 %").arg(row.bloom_use * 100.0, 0, 'f', 0) : QString();
    case kAge:
      if (sort) return row.age_ms < 0 ? std::numeric_limits<qint64>::max() : row.age_ms;
      return AgeText(row.age_ms);
  }
  return {};
}

QVariant OverviewModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Horizontal && role == Qt::ToolTipRole) {
    if (section == kStoreRole) {
      return tr("Updater: takes writes; replica: follows an updater and serves reads");
    }
    if (section == kLag) {
      return tr("A replica's lag behind its updater (documents, seconds); an updater's followers");
    }
    if (section == kRequests || section == kErrors) {
      return tr("Servers: requests they served; clients (italic rows): calls they made");
    }
    if (section == kRejections) {
      return tr(
          "Calls refused before any work: a server's LAME_DUCK or starting answers, a "
          "client's POOL_EXHAUSTED (no idle connection)");
    }
    if (section == kRetries) return tr("A client's attempts after a call's first");
    if (section == kP99) {
      return tr(
          "Server-side p99: handler time of the requests a server served, last minute; "
          "\u2014 without traffic");
    }
    if (section == kClientP99) {
      return tr(
          "Client-side p99: from a client's call to its answer (retries and the network "
          "included), last minute; \u2014 without traffic");
    }
    return {};
  }
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kName:
      return tr("Node");
    case kState:
      return tr("State");
    case kRole:
      return tr("Role");
    case kStoreRole:
      return tr("Store\nrole");
    case kLag:
      return tr("Replication");
    case kRequests:
      return tr("Req/s");
    case kErrors:
      return tr("Errors/s");
    case kRejections:
      return tr("Rejected/s");
    case kRetries:
      return tr("Retries/s");
    case kP99:
      return tr("Server\np99 ms");
    case kClientP99:
      return tr("Client\np99 ms");
    case kSlots:
      return tr("Slots");
    case kIndexes:
      return tr("Indexes");
    case kBloom:
      return tr("Bloom\nbudget");
    case kAge:
      return tr("Updated");
  }
  return {};
}

void OverviewModel::OnFrame(const QVector<int>& changed) {
  // Changed rows: in full where the name, health or kind (client or server, which sets the row's
  // font) moved; else only the cells whose text moved, as one signal per column and run of rows,
  // so a view repaints the figures that changed rather than every visible cell of every row.
  // For all rows the age cell, when its text moves on.
  QVector<bool> full(rows_, false);
  QVector<bool> identity(rows_, false);
  QVector<quint8> cell_changed(rows_ * kColumnCount, 0);
  for (int row : changed) {
    if (row < 0 || row >= rows_ || row >= state_->NodeCount()) continue;
    const NodeView& node = state_->Node(row);
    const QPair<QString, int> shown(node.name, static_cast<int>(node.health));
    const int kind = node.telemetry ? (ServesRequests(*node.telemetry) ? 1 : 2) : 0;
    if (shown_identity_[row] != shown) {
      shown_identity_[row] = shown;
      identity[row] = true;
    }
    if (identity[row] || shown_kind_[row] != kind) {
      shown_kind_[row] = kind;
      full[row] = true;
    }
    for (int column = kState; column < kColumnCount; ++column) {
      if (column == kAge) continue;  // Below, for every row.
      QString text = data(index(row, column), Qt::DisplayRole).toString();
      QString& before = shown_text_[row * kColumnCount + column];
      if (text == before) continue;
      before = std::move(text);
      cell_changed[row * kColumnCount + column] = 1;
    }
  }
  int first = -1;
  bool with_name = false;
  for (int row = 0; row <= rows_; ++row) {
    const bool in = row < rows_ && full[row];
    if (in && first < 0) first = row;
    if (in) with_name |= identity[row];
    if (!in && first >= 0) {
      Q_EMIT dataChanged(index(first, with_name ? kName : kState),
                         index(row - 1, kColumnCount - 1));
      first = -1;
      with_name = false;
    }
  }
  for (int column = kState; column < kColumnCount; ++column) {
    first = -1;
    for (int row = 0; row <= rows_; ++row) {
      const bool in = row < rows_ && !full[row] && cell_changed[row * kColumnCount + column];
      if (in && first < 0) first = row;
      if (!in && first >= 0) {
        Q_EMIT dataChanged(index(first, column), index(row - 1, column));
        first = -1;
      }
    }
  }
  const qint64 now = state_->NowMs();
  for (int row = 0; row < rows_ && row < state_->NodeCount(); ++row) {
    const NodeView& node = state_->Node(row);
    const qint64 age_s = node.updated_ms > 0 ? (now - node.updated_ms) / 1000 : -1;
    if (age_s == shown_age_s_[row]) continue;
    shown_age_s_[row] = age_s;
    if (!full[row]) Q_EMIT dataChanged(index(row, kAge), index(row, kAge));
  }
}

void OverviewModel::OnNodeAdded(int index) {
  if (index < rows_) return;
  beginInsertRows({}, rows_, index);
  rows_ = index + 1;
  shown_age_s_.resize(rows_, -1);
  shown_identity_.resize(rows_, {QString(), -1});
  shown_kind_.resize(rows_, -1);
  shown_text_.resize(rows_ * kColumnCount);
  endInsertRows();
}

void OverviewModel::OnReset() {
  beginResetModel();
  rows_ = state_->NodeCount();
  shown_age_s_.fill(-1, rows_);
  shown_identity_.fill({QString(), -1}, rows_);
  shown_kind_.fill(-1, rows_);
  shown_text_.fill(QString(), rows_ * kColumnCount);
  endResetModel();
}

OverviewFilterModel::OverviewFilterModel(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(OverviewModel::kSortRole);
  setDynamicSortFilter(true);
}

void OverviewFilterModel::SetNameFilter(const QString& text) {
  // Blanks around a name are never part of it: a stray Space does not hide every node.
  const QString name = text.trimmed();
  if (name_ == name) return;
  name_ = name;
  invalidateFilter();
}

void OverviewFilterModel::SetHealthFilter(int health) {
  if (health_ == health) return;
  health_ = health;
  invalidateFilter();
}

bool OverviewFilterModel::filterAcceptsRow(int source_row, const QModelIndex& source_parent) const {
  const QModelIndex name = sourceModel()->index(source_row, OverviewModel::kName, source_parent);
  if (!name_.isEmpty() && !name.data().toString().contains(name_, Qt::CaseInsensitive)) {
    return false;
  }
  return health_ < 0 || name.data(OverviewModel::kHealthRole).toInt() == health_;
}

}  // namespace railyard::ui
