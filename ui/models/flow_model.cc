// SPDX-License-Identifier: Apache-2.0
#include "ui/models/flow_model.h"

#include <algorithm>
#include <numeric>

#include "ui/models/natural_order.h"
#include "ui/models/palette.h"
#include "ui/support/color_mix.h"

namespace railyard::ui {

namespace {

quint64 EdgeKey(int client, int server) {
  return (static_cast<quint64>(static_cast<quint32>(client)) << 32) | static_cast<quint32>(server);
}

QString Rate(double per_s) {
  return per_s >= 100 ? QString::number(per_s, 'f', 0) : QString::number(per_s, 'f', 1);
}

// "12.5 requests/s in", or "requests/s in not known".
QString RatePhrase(const std::optional<double>& per_s, const QString& direction) {
  if (!per_s) return QObject::tr("requests/s %1 not known").arg(direction);
  return QObject::tr("%1 requests/s %2").arg(Rate(*per_s), direction);
}

// A node's connections, known exactly when its rate is (both are sums over its edges).
QString ConnectionsPhrase(const std::optional<double>& per_s, int connections, int busy) {
  if (!per_s) return QObject::tr("connections not known");
  return QObject::tr("%1 connections (%2 busy)").arg(connections).arg(busy);
}

}  // namespace

FlowModel::FlowModel(ClusterState* state, QObject* parent) : QObject(parent), state_(state) {
  // A seek replays this much history first, so rates at the seek point are what playing gave.
  state_->RequestHistoryMs(kRateWindowMs);
  connect(state_, &ClusterState::NodesReset, this, [this] {
    Reset();
    Q_EMIT Updated();
  });
  connect(state_, &ClusterState::NodeAdded, this, &FlowModel::OnNodeAdded);
  connect(state_, &ClusterState::FrameApplied, this,
          [this](const QVector<int>& changed) { OnFrame(changed, false); });
  connect(state_, &ClusterState::HistoryFrameApplied, this,
          [this](const QVector<int>& changed) { OnFrame(changed, true); });
  Reset();
}

void FlowModel::Reset() {
  servers_.clear();
  clients_.clear();
  edges_.clear();
  edge_states_.clear();
  edge_of_.clear();
  client_of_.clear();
  unwatched_server_of_.clear();
  server_of_node_.clear();
  node_read_ms_.clear();
  previous_read_ms_.clear();
  silent_since_read_.clear();
  reported_ms_.clear();
  server_order_.clear();
  client_order_.clear();
  max_edge_rate_.reset();
  order_dirty_ = true;
  ++layout_version_;
  for (int node = 0; node < state_->NodeCount(); ++node) OnNodeAdded(node);
  SortOrder();
}

void FlowModel::OnNodeAdded(int node) {
  if (node < server_of_node_.size()) return;
  while (server_of_node_.size() <= node) {
    const int n = static_cast<int>(server_of_node_.size());
    Server s;
    s.node = n;
    s.name = state_->Node(n).name;
    s.health = state_->Node(n).health;
    server_of_node_.push_back(static_cast<int>(servers_.size()));
    servers_.push_back(std::move(s));
    node_read_ms_.push_back(0);
    previous_read_ms_.push_back(0);
    silent_since_read_.push_back(false);
    reported_ms_.push_back(0);
  }
  order_dirty_ = true;
}

const FlowModel::Edge* FlowModel::FindEdge(const QString& client, const QString& server) const {
  for (const Edge& e : edges_) {
    if (clients_[size_t(e.client)].name == client && servers_[size_t(e.server)].name == server &&
        !servers_[size_t(e.server)].hidden) {
      return &e;
    }
  }
  return nullptr;
}

QColor FlowModel::EdgeColor(const Edge& edge) {
  const double t = edge.ranks <= 1 ? 0.0 : double(edge.rank) / double(edge.ranks - 1);
  // The palette's rank colour, darkened most for the lowest slot, so the traffic that settles on
  // the lowest slots reads darkest on a light background.
  const QColor by_slot = RankColor(edge.rank, edge.ranks).darker(int(170 - 60 * t));
  if (edge.error_share <= 0) return by_slot;
  // 20% errors or more: fully the unreachable red.
  return MixColors(by_slot, HealthColor(NodeHealth::kUnreachable),
                   std::min(1.0, edge.error_share * 5));
}

QString FlowModel::EdgeText(const Edge& edge) const {
  const Client& c = clients_[size_t(edge.client)];
  const Server& s = servers_[size_t(edge.server)];
  QString text;
  if (edge.rate) {
    text = tr("%1 → %2: %3 requests/s").arg(c.name, s.name, Rate(*edge.rate));
  } else {
    const int reporter = ReporterOf(edge);
    QString why;
    if (reporter < 0) {
      why = tr("no watched node reports it");
    } else if (!Answers(reporter)) {
      why = tr("%1 does not answer").arg(state_->Node(reporter).name);
    } else if (previous_read_ms_[reporter] <= 0) {
      why = tr("waiting for a second report from %1").arg(state_->Node(reporter).name);
    } else {
      why = tr("no report from %1 since %2")
                .arg(state_->Node(reporter).name, ClockText(node_read_ms_[reporter]));
    }
    text = tr("%1 → %2: requests/s not known (%3)").arg(c.name, s.name, why);
  }
  if (!edge.slots.isEmpty()) {
    QStringList slots;
    for (quint32 slot : edge.slots) slots << QString::number(slot);
    text += tr("\nslots %1 (%2 busy), rank %3 of %4 in the pool")
                .arg(slots.join(QStringLiteral(", ")))
                .arg(edge.busy)
                .arg(edge.rank + 1)
                .arg(edge.ranks);
  } else {
    // Slots are listed only from a reporter that answers; else nothing is known of them.
    text += Answers(ReporterOf(edge)) ? tr("\nno connection now") : tr("\nconnections not known");
  }
  if (edge.error_share >= 0) {
    text += tr("\nerrors %1%").arg(QString::number(edge.error_share * 100, 'f', 1));
  }
  text += edge.from_pool ? tr("\nfrom %1's pool").arg(c.name)
                         : tr("\nfrom %1's slot table").arg(s.name);
  return text;
}

QString FlowModel::NodeText(bool server, int index) const {
  if (server) {
    const Server& s = servers_[size_t(index)];
    QString text = s.watched() ? tr("%1: %2").arg(s.name, NodeHealthName(s.health))
                               : tr("%1: not watched (named by clients' pools)").arg(s.name);
    text +=
        tr("\n%1, %2")
            .arg(RatePhrase(s.rate, tr("in")), ConnectionsPhrase(s.rate, s.connections, s.busy));
    // Not answering itself: what the pools that answer report, which may miss other clients.
    if (s.watched() && !IsLive(s.health) && s.rate) text += tr("\nas the clients' pools report it");
    return text;
  }
  const Client& c = clients_[size_t(index)];
  QString text = c.watched() ? tr("%1: %2, pool of %3 reported by %4")
                                   .arg(c.name, NodeHealthName(c.health))
                                   .arg(c.capacity)
                                   .arg(state_->Node(c.node).name)
                             : tr("%1: not watched (seen in servers' slot tables)").arg(c.name);
  return text +
         tr("\n%1, %2")
             .arg(RatePhrase(c.rate, tr("out")), ConnectionsPhrase(c.rate, c.connections, c.busy));
}

int FlowModel::KnownServer(const std::string& address) const {
  // A watched node, by the cluster state's topology (the one the slot matrix reads too).
  if (const int node = state_->NodeAtAddress(address);
      node >= 0 && node < static_cast<int>(server_of_node_.size())) {
    return server_of_node_[node];
  }
  const auto it = unwatched_server_of_.find(address);
  return it == unwatched_server_of_.end() ? -1 : it->second;
}

int FlowModel::ServerFor(const std::string& address) {
  if (const int known = KnownServer(address); known >= 0) return known;
  Server s;
  s.name = QString::fromStdString(address);
  const int index = static_cast<int>(servers_.size());
  servers_.push_back(std::move(s));
  unwatched_server_of_.emplace(address, index);
  order_dirty_ = true;
  return index;
}

int FlowModel::ClientFor(quint64 id, const std::string& name) {
  if (auto it = client_of_.constFind(id); it != client_of_.constEnd()) {
    Client& c = clients_[size_t(*it)];
    if (c.name.isEmpty() && !name.empty()) {
      c.name = QString::fromStdString(name);
      order_dirty_ = true;
    }
    return *it;
  }
  Client c;
  c.id = id;
  c.name = name.empty() ? QStringLiteral("%1").arg(id, 16, 16, QLatin1Char('0'))
                        : QString::fromStdString(name);
  const int index = static_cast<int>(clients_.size());
  clients_.push_back(std::move(c));
  client_of_.insert(id, index);
  order_dirty_ = true;
  return index;
}

int FlowModel::EdgeFor(int client, int server) {
  const quint64 key = EdgeKey(client, server);
  if (auto it = edge_of_.constFind(key); it != edge_of_.constEnd()) return *it;
  Edge e;
  e.client = client;
  e.server = server;
  const int index = static_cast<int>(edges_.size());
  edges_.push_back(std::move(e));
  edge_states_.emplace_back();
  edge_of_.insert(key, index);
  return index;
}

void FlowModel::AddConn(Side& side, quint64 stamp, const Conn& conn) {
  if (side.stamp != stamp) {
    side.next.clear();
    side.stamp = stamp;
  }
  // The same connection as last time (same slot): what its counter rose by is new traffic.
  for (const Conn& before : side.conns) {
    if (before.slot == conn.slot) {
      if (conn.requests >= before.requests) side.count += conn.requests - before.requests;
      break;
    }
  }
  side.next.push_back(conn);
}

void FlowModel::SyncNode(int node) {
  const NodeView& view = state_->Node(node);
  const int s = server_of_node_[node];
  Server& server = servers_[size_t(s)];
  server.health = view.health;
  if (server.name != view.name) {
    server.name = view.name;
    order_dirty_ = true;
  }
  const bool client_only = state_->RoleOf(node) == ClusterState::Role::kClientOnly;
  if (server.hidden != client_only) {
    server.hidden = client_only;
    order_dirty_ = true;
  }
}

void FlowModel::HideClaimedServers() {
  for (auto it = unwatched_server_of_.begin(); it != unwatched_server_of_.end();) {
    if (state_->NodeAtAddress(it->first) < 0) {
      ++it;
      continue;
    }
    // Pools named this server before its node answered: from now on it is the node (the alias's
    // edges are dropped by ForgetIdle; their rates restart there within kRateWindowMs).
    servers_[size_t(it->second)].hidden = true;
    it = unwatched_server_of_.erase(it);
    order_dirty_ = true;
  }
}

void FlowModel::ReadSlots(int node, const admin::Telemetry& telemetry) {
  const int s = server_of_node_[node];
  if (servers_[size_t(s)].hidden) return;
  const qint64 now = state_->NowMs();
  for (const admin::SlotEntry& entry : telemetry.slots()) {
    const int c = ClientFor(entry.client_id(), entry.client_name());
    clients_[size_t(c)].last_seen_ms = now;
    Side& side = edge_states_[size_t(EdgeFor(c, s))].slot;
    side.reporter = node;
    AddConn(side, stamp_, {entry.slot(), entry.requests(), entry.busy()});
  }
}

void FlowModel::ReadPools(int node, const admin::Telemetry& telemetry) {
  const qint64 now = state_->NowMs();
  for (const admin::ClientPool& pool : telemetry.pools()) {
    const int c = ClientFor(pool.client_id(), pool.client_name());
    Client& client = clients_[size_t(c)];
    client.node = node;
    client.capacity = static_cast<int>(pool.capacity());
    client.last_seen_ms = now;
    for (const admin::PoolEntry& entry : pool.entries()) {
      const int s = ServerFor(entry.server());
      EdgeState& state = edge_states_[size_t(EdgeFor(c, s))];
      state.error_share = -1;  // Until this report's policy says otherwise.
      Side& side = state.pool;
      side.reporter = node;
      AddConn(side, stamp_, {entry.slot(), entry.requests(), entry.busy()});
    }
    for (const admin::PolicyBackend& backend : pool.policy_backends()) {
      const int s = KnownServer(backend.server());
      if (s < 0) continue;
      const auto e = edge_of_.constFind(EdgeKey(c, s));
      if (e == edge_of_.constEnd()) continue;
      // A policy that tracks neither leaves both at zero: errors not known.
      const bool known = backend.success_rate() > 0 || backend.recent_errors() > 0;
      edge_states_[size_t(*e)].error_share =
          known ? std::clamp(1.0 - backend.success_rate(), 0.0, 1.0) : -1.0;
    }
  }
}

void FlowModel::CloseSides() {
  for (EdgeState& state : edge_states_) {
    for (Side* side : {&state.pool, &state.slot}) {
      if (side->reporter < 0) continue;
      const qint64 at = reported_ms_[side->reporter];
      if (at <= 0) continue;
      // The reporter spoke this frame: what it did not list is gone.
      if (side->stamp == stamp_) {
        side->conns = side->next;
      } else {
        side->conns.clear();
      }
      side->next.clear();
      // After a silence longer than the window, what came before is no base for a rate now.
      if (previous_read_ms_[side->reporter] <= 0) side->samples.Clear();
      side->samples.Push(at, side->count);
      // Keep one sample at or before the window's start, as the base of the rate.
      while (side->samples.size > 1 && side->samples[1].first <= at - kRateWindowMs) {
        side->samples.DropOldest();
      }
    }
  }
}

bool FlowModel::Answers(int node) const { return node >= 0 && IsLive(state_->Node(node).health); }

int FlowModel::ReporterOf(const Edge& edge) const {
  return edge.from_pool ? clients_[size_t(edge.client)].node : servers_[size_t(edge.server)].node;
}

std::optional<double> FlowModel::SideRate(const Side& side, int reporter, qint64 now) const {
  if (!Answers(reporter)) return std::nullopt;
  // Two reports of the reporter in a row (none at the start or after a silence), the newer
  // recent: else nothing it says can be compared with what it said before.
  const qint64 newest = node_read_ms_[reporter];
  const qint64 before = previous_read_ms_[reporter];
  if (before <= 0 || newest < now - FreshForMs(newest - before)) return std::nullopt;
  // Never listed, or listed first in the newest report (which adds nothing): no rise counted.
  if (side.samples.size < 2) return 0.0;
  const auto& [t0, n0] = side.samples.Oldest();
  const auto& [t1, n1] = side.samples.Newest();
  if (t1 <= t0) return 0.0;
  return double(n1 - n0) * 1000.0 / double(t1 - t0);
}

void FlowModel::Summarize(qint64 now) {
  server_sums_.assign(servers_.size(), {});
  client_sums_.assign(clients_.size(), {});
  for (Server& s : servers_) {
    s.connections = 0;
    s.busy = 0;
  }
  client_slots_.resize(static_cast<int>(clients_.size()));
  for (auto& slots : client_slots_) slots.clear();
  for (Client& c : clients_) {
    c.connections = 0;
    c.busy = 0;
    if (c.node >= 0) c.health = state_->Node(c.node).health;
  }
  max_edge_rate_.reset();
  for (size_t i = 0; i < edges_.size(); ++i) {
    Edge& e = edges_[i];
    const EdgeState& state = edge_states_[i];
    Client& c = clients_[size_t(e.client)];
    Server& s = servers_[size_t(e.server)];
    // A watched client's pool is the truth about it while its node answers.
    e.from_pool = Answers(c.node);
    const Side& side = e.from_pool ? state.pool : state.slot;
    e.rate = SideRate(side, ReporterOf(e), now);
    e.slots.clear();
    e.busy = 0;
    if (Answers(side.reporter)) {
      for (const Conn& conn : side.conns) {
        e.slots.push_back(conn.slot);
        e.busy += conn.busy ? 1 : 0;
      }
      std::sort(e.slots.begin(), e.slots.end());
    }
    e.error_share = e.from_pool ? state.error_share : -1.0;
    for (RateSum* sum : {&server_sums_[size_t(e.server)], &client_sums_[size_t(e.client)]}) {
      sum->rate += e.rate.value_or(0);
      sum->all_known = sum->all_known && e.rate.has_value();
      ++sum->edges;
    }
    c.connections += int(e.slots.size());
    s.connections += int(e.slots.size());
    c.busy += e.busy;
    s.busy += e.busy;
    for (quint32 slot : e.slots) client_slots_[e.client].push_back(slot);
    if (!s.hidden && e.rate) max_edge_rate_ = std::max(max_edge_rate_.value_or(0), *e.rate);
  }
  // Known when every edge is; with no edge, only from the node itself answering.
  auto total = [this](const RateSum& sum, int node) -> std::optional<double> {
    if (!sum.all_known || (sum.edges == 0 && !Answers(node))) return std::nullopt;
    return sum.rate;
  };
  for (size_t s = 0; s < servers_.size(); ++s) {
    servers_[s].rate = total(server_sums_[s], servers_[s].node);
  }
  for (size_t c = 0; c < clients_.size(); ++c) {
    clients_[c].rate = total(client_sums_[c], clients_[c].node);
  }
  for (auto& slots : client_slots_) std::sort(slots.begin(), slots.end());
  for (Edge& e : edges_) {
    const auto& all = client_slots_[e.client];
    e.ranks = std::max(1, int(all.size()));
    e.rank = e.slots.isEmpty()
                 ? e.ranks - 1
                 : int(std::lower_bound(all.begin(), all.end(), e.slots[0]) - all.begin());
  }
}

void FlowModel::ForgetIdle(qint64 now) {
  auto idle_edge = [this](size_t i) {
    const Edge& e = edges_[i];
    const EdgeState& state = edge_states_[i];
    if (servers_[size_t(e.server)].hidden) return true;
    return e.rate.value_or(0) == 0 && state.pool.conns.isEmpty() && state.slot.conns.isEmpty();
  };
  // Usually nothing goes: find that out without allocating.
  client_has_edge_.fill(false, static_cast<int>(clients_.size()));
  bool any = false;
  for (size_t i = 0; i < edges_.size(); ++i) {
    if (idle_edge(i)) {
      any = true;
    } else {
      client_has_edge_[edges_[i].client] = true;
    }
  }
  auto idle_client = [&](size_t c) {
    return !client_has_edge_[int(c)] && now - clients_[c].last_seen_ms > kForgetClientMs;
  };
  for (size_t c = 0; c < clients_.size() && !any; ++c) any = idle_client(c);
  if (!any) return;
  QVector<int> new_client(static_cast<int>(clients_.size()), -1);
  std::vector<Client> clients;
  for (size_t c = 0; c < clients_.size(); ++c) {
    if (idle_client(c)) continue;
    new_client[int(c)] = static_cast<int>(clients.size());
    clients.push_back(clients_[c]);
  }
  // In place: an EdgeState is a few hundred bytes held inline, and building new vectors of 2400
  // of them cost several milliseconds in allocations and page faults every time an edge went.
  size_t kept = 0;
  for (size_t i = 0; i < edges_.size(); ++i) {
    if (idle_edge(i) || new_client[edges_[i].client] < 0) continue;
    if (kept != i) {
      edges_[kept] = std::move(edges_[i]);
      edge_states_[kept] = std::move(edge_states_[i]);
    }
    edges_[kept].client = new_client[edges_[kept].client];
    ++kept;
  }
  edges_.resize(kept);
  edge_states_.erase(edge_states_.begin() + static_cast<std::ptrdiff_t>(kept), edge_states_.end());
  edge_of_.clear();
  edge_of_.reserve(static_cast<qsizetype>(kept));
  for (size_t i = 0; i < kept; ++i) {
    edge_of_.insert(EdgeKey(edges_[i].client, edges_[i].server), static_cast<int>(i));
  }
  if (clients.size() != clients_.size()) {
    clients_ = std::move(clients);
    client_of_.clear();
    for (size_t c = 0; c < clients_.size(); ++c) client_of_.insert(clients_[c].id, int(c));
    order_dirty_ = true;
  }
}

void FlowModel::SortOrder() {
  // Unwatched servers show while a client names them; watched ones always.
  QVector<int> servers;
  for (size_t s = 0; s < servers_.size(); ++s) {
    const Server& server = servers_[s];
    if (!server.hidden &&
        (server.watched() || server.connections > 0 || server.rate.value_or(0) > 0)) {
      servers << int(s);
    }
  }
  auto by_name = [](const auto& list) {
    return
        [&list](int a, int b) { return NaturalLess(list[size_t(a)].name, list[size_t(b)].name); };
  };
  if (!order_dirty_) {
    // Membership may change without a name changing (an unwatched server loses its last edge).
    if (servers.size() == server_order_.size() &&
        std::is_permutation(servers.begin(), servers.end(), server_order_.begin())) {
      return;
    }
  }
  std::stable_sort(servers.begin(), servers.end(), by_name(servers_));
  QVector<int> clients(static_cast<int>(clients_.size()));
  std::iota(clients.begin(), clients.end(), 0);
  std::stable_sort(clients.begin(), clients.end(), by_name(clients_));
  server_order_ = std::move(servers);
  client_order_ = std::move(clients);
  order_dirty_ = false;
  ++layout_version_;
}

void FlowModel::OnFrame(const QVector<int>& changed, bool history) {
  const qint64 now = state_->NowMs();
  ++stamp_;
  std::fill(reported_ms_.begin(), reported_ms_.end(), 0);
  for (int node : changed) {
    if (node < 0 || node >= server_of_node_.size()) continue;
    SyncNode(node);
    const NodeView& view = state_->Node(node);
    if (!IsLive(view.health)) silent_since_read_[node] = true;
    // A node's telemetry is read once: a seek's last frame may repeat the history's last one.
    if (view.telemetry && IsLive(view.health) && view.updated_ms > node_read_ms_[node]) {
      reported_ms_[node] = view.updated_ms;
      // Back from a silence longer than the window: this report starts afresh. A shorter one
      // (a poll or two that failed) is spanned: the counters are cumulative. Slow polling is no
      // silence: the node answered every poll.
      const bool after_silence =
          silent_since_read_[node] && view.updated_ms - node_read_ms_[node] > kRateWindowMs;
      previous_read_ms_[node] = after_silence ? 0 : node_read_ms_[node];
      node_read_ms_[node] = view.updated_ms;
      silent_since_read_[node] = false;
    }
  }
  HideClaimedServers();
  for (int node = 0; node < reported_ms_.size(); ++node) {
    if (reported_ms_[node] <= 0) continue;
    const admin::Telemetry& telemetry = *state_->Node(node).telemetry;
    ReadSlots(node, telemetry);
    ReadPools(node, telemetry);
  }
  CloseSides();
  if (!active_) {
    // What nobody sees: only often enough that forgotten clients do not pile up.
    if (now < summarized_ms_ || now - summarized_ms_ >= kInactiveSummaryMs) {
      Summarize(now);
      ForgetIdle(now);
      summarized_ms_ = now;
    }
    return;
  }
  Summarize(now);
  ForgetIdle(now);  // Keeps the figures of what stays.
  SortOrder();
  if (!history) Q_EMIT Updated();
}

void FlowModel::SetActive(bool active) {
  if (active == active_) return;
  active_ = active;
  if (!active_) {
    summarized_ms_ = state_->NowMs();
    return;
  }
  const qint64 now = state_->NowMs();
  Summarize(now);
  ForgetIdle(now);
  SortOrder();
  Q_EMIT Updated();
}

}  // namespace railyard::ui
