// SPDX-License-Identifier: Apache-2.0
#include "ui/models/cluster_state.h"

#include <QDateTime>
#include <algorithm>

#include "core/cluster/request_figures.h"

namespace railyard::ui {

QString NodeHealthName(NodeHealth health) {
  switch (health) {
    case NodeHealth::kConnecting:
      return QStringLiteral("connecting");
    case NodeHealth::kServing:
      return QStringLiteral("serving");
    case NodeHealth::kLameDuck:
      return QStringLiteral("lame duck");
    case NodeHealth::kUnreachable:
      return QStringLiteral("unreachable");
    case NodeHealth::kStale:
      return QStringLiteral("stale");
    case NodeHealth::kStarting:
      return QStringLiteral("starting");
    case NodeHealth::kTokenRefused:
      return QStringLiteral("token refused");
  }
  return QStringLiteral("?");
}

bool IsLive(NodeHealth health) {
  return health == NodeHealth::kServing || health == NodeHealth::kLameDuck ||
         health == NodeHealth::kStarting;
}

QString ClockText(qint64 ms) {
  return QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("HH:mm:ss"));
}

QString MomentText(qint64 ms) {
  const QDateTime moment = QDateTime::fromMSecsSinceEpoch(ms);
  return moment.date() == QDate::currentDate()
             ? ClockText(ms)
             : moment.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

bool ServesRequests(const admin::Telemetry& telemetry) {
  return telemetry.role() != admin::ROLE_CLIENT;
}

std::vector<std::string> AddressesOf(const NodeView& node) {
  std::vector<std::string> addresses = {node.name.toStdString()};
  if (node.telemetry && !node.telemetry->service_address().empty()) {
    addresses.push_back(node.telemetry->service_address());
  }
  return addresses;
}

admin::ClientThroughput ClientFiguresOf(const admin::Telemetry& telemetry) {
  admin::ClientThroughput sum;
  bool reported = false;
  for (const admin::ClientPool& pool : telemetry.pools()) {
    if (!pool.has_throughput()) continue;
    reported = true;
    const admin::ClientThroughput& t = pool.throughput();
    sum.set_requests_per_s(sum.requests_per_s() + t.requests_per_s());
    sum.set_errors_per_s(sum.errors_per_s() + t.errors_per_s());
    sum.set_rejections_per_s(sum.rejections_per_s() + t.rejections_per_s());
    sum.set_retries_per_s(sum.retries_per_s() + t.retries_per_s());
    sum.set_p50_us(std::max(sum.p50_us(), t.p50_us()));
    sum.set_p99_us(std::max(sum.p99_us(), t.p99_us()));
    sum.set_max_us(std::max(sum.max_us(), t.max_us()));
  }
  if (reported || telemetry.role() != admin::ROLE_CLIENT) return sum;
  const admin::Throughput& own = telemetry.throughput();
  sum.set_requests_per_s(own.requests_per_s());
  sum.set_errors_per_s(own.errors_per_s());
  sum.set_rejections_per_s(own.rejections_per_s());
  sum.set_p50_us(cluster::RequestP50Us(own));
  sum.set_p99_us(cluster::RequestP99Us(own));
  for (const admin::MethodStats& m : own.methods()) {
    if (!cluster::IsLongPoll(m.method())) sum.set_max_us(std::max(sum.max_us(), m.max_us()));
  }
  return sum;
}

namespace {

NodeHealth HealthOf(const admin::Telemetry& telemetry) {
  switch (telemetry.state()) {
    case admin::NODE_LAME_DUCK:
      return NodeHealth::kLameDuck;
    case admin::NODE_STARTING:
      return NodeHealth::kStarting;
    default:
      return NodeHealth::kServing;
  }
}

}  // namespace

ClusterState::ClusterState(QObject* parent) : QObject(parent) {}

int ClusterState::AddNode(const QString& admin_address, const QString& name) {
  if (const int existing = IndexOfAddress(admin_address); existing >= 0) return existing;
  NodeView view;
  view.admin_address = admin_address;
  view.name = name.isEmpty() ? admin_address : name;
  nodes_.push_back(std::move(view));
  pool_servers_.emplace_back();
  const int index = NodeCount() - 1;
  for (std::string& address : AddressesOf(Node(index)))
    node_at_address_.try_emplace(address, index);
  Q_EMIT NodeAdded(index);
  return index;
}

void ClusterState::ApplyFrame(const std::vector<Update>& updates, qint64 now_ms) {
  Q_EMIT FrameApplied(Apply(updates, now_ms));
}

void ClusterState::ApplyHistoryFrame(const std::vector<Update>& updates, qint64 now_ms) {
  Q_EMIT HistoryFrameApplied(Apply(updates, now_ms));
}

QVector<int> ClusterState::Apply(const std::vector<Update>& updates, qint64 now_ms) {
  now_ms_ = std::max(now_ms_, now_ms);
  QVector<int> changed;
  changed.reserve(static_cast<int>(updates.size()));
  bool addresses_changed = false;
  for (const Update& update : updates) {
    if (update.node < 0 || update.node >= NodeCount()) continue;
    NodeView& view = nodes_[static_cast<size_t>(update.node)];
    if (update.telemetry) {
      const bool first = !view.telemetry;
      const QString name_before = view.name;
      const bool service_moved =
          !first && view.telemetry->service_address() != update.telemetry->service_address();
      view.telemetry = update.telemetry;
      view.updated_ms = update.at_ms > 0 ? update.at_ms : now_ms;
      view.health = HealthOf(*update.telemetry);
      view.last_error.clear();
      view.down_since_ms = 0;
      if (!update.telemetry->node().empty())
        view.name = QString::fromStdString(update.telemetry->node());
      addresses_changed = addresses_changed || first || service_moved || view.name != name_before;
    } else {
      // Keep the last telemetry: the views show what was last known, marked unreachable.
      view.health = update.token_refused ? NodeHealth::kTokenRefused : NodeHealth::kUnreachable;
      view.last_error = update.error;
      if (view.down_since_ms == 0) view.down_since_ms = update.at_ms > 0 ? update.at_ms : now_ms;
    }
    changed.push_back(update.node);
  }
  if (addresses_changed) IndexAddresses();
  // Nodes that were not in this frame may have gone stale meanwhile.
  for (int i = 0; i < NodeCount(); ++i) {
    NodeView& view = nodes_[static_cast<size_t>(i)];
    // A flight recorder's downsampled snapshot stands for its whole bucket (a replay of the past).
    const qint64 allowance =
        stale_after_ms_ + (view.telemetry ? view.telemetry->downsampled().bucket_ms() : 0);
    if (IsLive(view.health) && now_ms_ - view.updated_ms > allowance) {
      view.health = NodeHealth::kStale;
      view.down_since_ms = view.updated_ms;
      if (!changed.contains(i)) changed.push_back(i);
    }
  }
  // Nearly every server a pool names is a watched node's; those are not counted, so when a node's
  // addresses change every pool is counted again.
  if (addresses_changed) {
    CountAllPoolServers();
  } else {
    for (int node : changed) CountPoolServers(node);
  }
  return changed;
}

void ClusterState::Tick(qint64 now_ms) { ApplyFrame({}, now_ms); }

bool ClusterState::AnyTelemetry() const {
  return std::any_of(nodes_.begin(), nodes_.end(),
                     [](const NodeView& node) { return node.telemetry != nullptr; });
}

void ClusterState::Clear() {
  nodes_.clear();
  node_at_address_.clear();
  pool_servers_.clear();
  pool_server_count_.clear();
  now_ms_ = 0;
  Q_EMIT NodesReset();
}

void ClusterState::RemoveNode(int index) {
  if (index < 0 || index >= NodeCount()) return;
  nodes_.erase(nodes_.begin() + index);
  pool_servers_.erase(pool_servers_.begin() + index);
  IndexAddresses();
  CountAllPoolServers();
  removed_node_ = index;
  Q_EMIT NodesReset();
  removed_node_ = -1;
  QVector<int> all;
  for (int i = 0; i < NodeCount(); ++i) {
    Q_EMIT NodeAdded(i);
    all.push_back(i);
  }
  Q_EMIT FrameApplied(all);
}

void ClusterState::IndexAddresses() {
  node_at_address_.clear();
  for (int i = 0; i < NodeCount(); ++i) {
    // The first node to claim an address keeps it (two nodes cannot serve at one address).
    for (std::string& address : AddressesOf(Node(i))) node_at_address_.try_emplace(address, i);
  }
}

void ClusterState::UncountPoolServers(int node) {
  for (const std::string& address : pool_servers_[static_cast<size_t>(node)]) {
    if (auto it = pool_server_count_.find(address); it != pool_server_count_.end()) {
      if (--it->second <= 0) pool_server_count_.erase(it);
    }
  }
  pool_servers_[static_cast<size_t>(node)].clear();
}

void ClusterState::CountPoolServers(int node) {
  UncountPoolServers(node);
  const NodeView& view = Node(node);
  if (!view.telemetry || !IsLive(view.health)) return;
  std::vector<std::string>& named = pool_servers_[static_cast<size_t>(node)];
  for (const admin::ClientPool& pool : view.telemetry->pools()) {
    for (const admin::PoolEntry& entry : pool.entries()) {
      if (!entry.server().empty() && NodeAtAddress(entry.server()) < 0) {
        named.push_back(entry.server());
      }
    }
  }
  std::sort(named.begin(), named.end());
  named.erase(std::unique(named.begin(), named.end()), named.end());
  for (const std::string& address : named) ++pool_server_count_[address];
}

void ClusterState::CountAllPoolServers() {
  pool_server_count_.clear();
  for (int node = 0; node < NodeCount(); ++node) {
    pool_servers_[static_cast<size_t>(node)].clear();
    CountPoolServers(node);
  }
}

ClusterState::Role ClusterState::RoleOf(int node) const {
  const NodeView& view = Node(node);
  if (!view.telemetry) return Role::kUnknown;
  return ServesRequests(*view.telemetry) ? Role::kServer : Role::kClientOnly;
}

bool ClusterState::IsUnwatchedServer(const std::string& address) const {
  return pool_server_count_.count(address) > 0 && NodeAtAddress(address) < 0;
}

int ClusterState::NodeAtAddress(const std::string& address) const {
  const auto it = node_at_address_.find(address);
  return it == node_at_address_.end() ? -1 : it->second;
}

int ClusterState::IndexOfAddress(const QString& admin_address) const {
  for (int i = 0; i < NodeCount(); ++i) {
    if (nodes_[static_cast<size_t>(i)].admin_address == admin_address) return i;
  }
  return -1;
}

int ClusterState::IndexOfName(const QString& name) const {
  for (int i = 0; i < NodeCount(); ++i) {
    if (nodes_[static_cast<size_t>(i)].name == name) return i;
  }
  return -1;
}

}  // namespace railyard::ui
