// SPDX-License-Identifier: Apache-2.0
#include "ui/sources/live_source.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <algorithm>
#include <deque>
#include <map>
#include <thread>

#include "core/base/mutex.h"
#include "core/cluster/admin_client.h"
#include "core/cluster/history_fetch.h"
#include "core/cluster/telemetry_poller.h"
#include "core/rpc/endpoint.h"
#include "ui/support/gui_thread.h"

namespace railyard::ui {

using Clock = std::chrono::steady_clock;

bool ParseAdminAddress(const QString& text, std::string* host, uint16_t* port, QString* error) {
  const std::optional<rpc::Endpoint> endpoint = rpc::ParseEndpoint(text.trimmed().toStdString());
  if (!endpoint) {
    if (error) *error = QStringLiteral("'%1' is not host:port").arg(text);
    return false;
  }
  *host = endpoint->host;
  *port = endpoint->port;
  return true;
}

// The worker: one thread running the cluster layer's telemetry poller, a round every period.
class LivePoller {
 public:
  // EndGapRound's mark in place of a node.
  static constexpr int kGapRoundEnd = -2;

  using Deliver = std::function<void(std::vector<ClusterState::Update>, qint64 now_ms)>;
  using DeliverHistory = std::function<void(std::vector<NodeHistory>)>;
  using DeliverGap = std::function<void(NodeHistory)>;
  // The nodes to backfill before the first round, and from when (unix ms; 0: none).
  struct Backfill {
    std::vector<cluster::PollTarget> targets;
    qint64 from_unix_ms = 0;
    // Nodes added to a cluster already shown: read beside the polling, which starts at once.
    bool beside_polling = false;
  };

  LivePoller(std::vector<cluster::PollTarget> targets, const LiveSource::Options& options,
             Backfill backfill, Deliver deliver, DeliverHistory deliver_history,
             DeliverGap deliver_gap)
      : targets_(targets),
        poller_(std::move(targets), PollerOptionsFrom(options)),
        period_(static_cast<int64_t>(1000.0 / std::max(0.1, options.poll_hz))),
        options_(options),
        backfill_(std::move(backfill)),
        deliver_(std::move(deliver)),
        deliver_history_(std::move(deliver_history)),
        deliver_gap_(std::move(deliver_gap)) {
    thread_ = std::thread([this] { Run(); });
  }
  ~LivePoller() {
    {
      base::MutexLock lock(mu_);
      stop_ = true;
      // A backfill blocked on a node's page ends now, not at its deadline.
      for (cluster::AdminClient* client : backfilling_) client->Cancel();
    }
    cv_.NotifyAll();
    gap_cv_.NotifyAll();
    poller_.Cancel();
    thread_.join();
    if (backfill_thread_.joinable()) backfill_thread_.join();
    if (gap_thread_.joinable()) gap_thread_.join();
  }
  void SetToken(int index, std::string token) {
    {
      base::MutexLock lock(mu_);  // The gap reader's copy.
      for (cluster::PollTarget& t : targets_) {
        if (t.id == index) t.token = token;
      }
    }
    poller_.SetToken(index, std::move(token));
  }

  // Reads node `id`'s flight recorder over [from_unix_ms, to_unix_ms] beside the polling, one
  // read at a time in the order asked, and posts what it held with deliver_gap (nothing if it
  // held nothing, or could not be read within the backfill's time and byte budget).
  void FillGap(int id, int64_t from_unix_ms, int64_t to_unix_ms) {
    base::MutexLock lock(mu_);
    if (stop_) return;
    gaps_.push_back({id, from_unix_ms, to_unix_ms});
    if (!gap_thread_.joinable()) gap_thread_ = std::thread([this] { RunGaps(); });
    gap_cv_.NotifyAll();
  }
  // Once every FillGap asked before it has been read (delivered or not), posts an empty history
  // for node kGapRoundEnd: the end of a round of reads that belong together.
  void EndGapRound() { FillGap(kGapRoundEnd, 0, 0); }

 private:
  static cluster::PollerOptions PollerOptionsFrom(const LiveSource::Options& o) {
    cluster::PollerOptions options;
    options.backoff_min = o.backoff_min;
    options.backoff_max = o.backoff_max;
    options.connect_timeout = o.connect_timeout;
    options.answer_timeout = o.answer_timeout;
    options.client_name = "railyard-console";
    options.pause_on_refused_token = true;
    return options;
  }

  bool Stopped() {
    base::MutexLock lock(mu_);
    return stop_;
  }

  // Waits for `client`'s connection until `deadline`, a slice at a time so that a stop is heard.
  bool WaitConnected(const cluster::AdminClient& client, Clock::time_point deadline) {
    while (!Stopped()) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return false;
      if (client.WaitConnected(std::min(left, std::chrono::milliseconds(100)))) return true;
      if (client.ConnectFailed()) return false;  // Refused, or no hello: polled as before.
    }
    return false;
  }

  // What node `id`'s flight recorder holds in [from, to] (to 0: up to now), within `limits`;
  // empty if it keeps none, or on an error (the node is polled as before).
  NodeHistory ReadPast(cluster::AdminClient& client, int id, int64_t from_unix_ms,
                       int64_t to_unix_ms, cluster::HistoryFetchLimits limits) {
    NodeHistory history;
    history.node = id;
    cluster::HistoryFetchResult fetched;
    (void)cluster::FetchHistory(
        client, from_unix_ms, to_unix_ms, limits,
        [&](admin::History& page) {
          for (admin::Telemetry& t : *page.mutable_snapshots()) {
            history.snapshots.push_back(std::make_shared<const admin::Telemetry>(std::move(t)));
          }
          return !Stopped();
        },
        &fetched);
    return history;
  }

  // Reads every backfill target's flight recorder, all connecting at once, within the options'
  // time and byte budget, and posts what came.
  void RunBackfill() {
    const Clock::time_point deadline = Clock::now() + options_.backfill_timeout;
    std::vector<std::unique_ptr<cluster::AdminClient>> clients;
    {
      // Started under the lock, so that the destructor cancels each client after its start (a
      // client started after its Stop would be left running).
      base::MutexLock lock(mu_);
      if (stop_) return;
      for (const cluster::PollTarget& t : backfill_.targets) {
        clients.push_back(std::make_unique<cluster::AdminClient>(
            t.admin, t.token, "railyard-console backfill", t.tls));
        (void)clients.back()->StartConnecting();  // A failure shows as not connected below.
        backfilling_.push_back(clients.back().get());
      }
    }
    const uint64_t per_node =
        options_.backfill_max_bytes / std::max<size_t>(1, backfill_.targets.size());
    std::vector<NodeHistory> histories;
    for (size_t i = 0; i < clients.size() && !Stopped(); ++i) {
      if (!WaitConnected(*clients[i], deadline)) continue;
      // A node that keeps no history (or an older one without the method) is simply polled.
      NodeHistory history = ReadPast(*clients[i], backfill_.targets[i].id, backfill_.from_unix_ms,
                                     0, {deadline, per_node});
      if (!history.snapshots.empty()) histories.push_back(std::move(history));
    }
    {
      base::MutexLock lock(mu_);
      backfilling_.clear();  // Before the clients go.
    }
    if (!Stopped()) deliver_history_(std::move(histories));
  }

  struct Gap {
    int id = -1;
    int64_t from_unix_ms = 0;
    int64_t to_unix_ms = 0;
  };

  // The gap reader's thread: FillGap's requests, one after another, until the stop.
  void RunGaps() {
    while (true) {
      Gap gap;
      std::optional<cluster::PollTarget> target;
      std::unique_ptr<cluster::AdminClient> client;
      {
        base::MutexLock lock(mu_);
        while (!stop_ && gaps_.empty()) gap_cv_.Wait(mu_);
        if (stop_) return;
        gap = gaps_.front();
        gaps_.pop_front();
        if (gap.id == kGapRoundEnd) {
          deliver_gap_(NodeHistory{kGapRoundEnd, {}});
          continue;
        }
        for (const cluster::PollTarget& t : targets_) {
          if (t.id == gap.id) target = t;
        }
        if (!target) continue;
        // Started under the lock, as RunBackfill's, so that the destructor cancels it.
        client = std::make_unique<cluster::AdminClient>(target->admin, target->token,
                                                        "railyard-console backfill", target->tls);
        (void)client->StartConnecting();
        backfilling_.push_back(client.get());
      }
      const Clock::time_point deadline = Clock::now() + options_.backfill_timeout;
      NodeHistory history;
      if (WaitConnected(*client, deadline)) {
        history = ReadPast(*client, gap.id, gap.from_unix_ms, gap.to_unix_ms,
                           {deadline, options_.backfill_max_bytes});
      }
      {
        base::MutexLock lock(mu_);
        std::erase(backfilling_, client.get());
        if (stop_) return;
      }
      if (!history.snapshots.empty()) deliver_gap_(std::move(history));
    }
  }

  void Run() {
    if (backfill_.from_unix_ms > 0 && !backfill_.targets.empty()) {
      if (backfill_.beside_polling) {
        backfill_thread_ = std::thread([this] { RunBackfill(); });
      } else {
        RunBackfill();
      }
    }
    Clock::time_point next_round = Clock::now();
    while (true) {
      {
        base::MutexLock lock(mu_);
        while (!stop_ && cv_.WaitUntil(mu_, next_round)) {
        }
        if (stop_) return;
      }
      next_round = std::max(next_round + period_, Clock::now());
      std::vector<ClusterState::Update> updates;
      for (cluster::PollResult& r : poller_.PollRound()) {
        ClusterState::Update update;
        update.node = r.id;
        update.telemetry = std::move(r.telemetry);
        if (!r.status.ok()) update.error = QString::fromStdString(r.status.ToString());
        update.token_refused = r.paused;
        updates.push_back(std::move(update));
      }
      {
        base::MutexLock lock(mu_);
        if (stop_) return;
      }
      deliver_(std::move(updates), QDateTime::currentMSecsSinceEpoch());
    }
  }

  // The targets as polled (the gap reader's copy; tokens follow SetToken).
  std::vector<cluster::PollTarget> targets_ RAILYARD_GUARDED_BY(mu_);
  cluster::TelemetryPoller poller_;
  const std::chrono::milliseconds period_;
  const LiveSource::Options options_;
  const Backfill backfill_;
  const Deliver deliver_;
  const DeliverHistory deliver_history_;
  const DeliverGap deliver_gap_;
  base::Mutex mu_;
  base::CondVar cv_;
  base::CondVar gap_cv_;  // FillGap asked, or the stop.
  std::deque<Gap> gaps_ RAILYARD_GUARDED_BY(mu_);
  bool stop_ RAILYARD_GUARDED_BY(mu_) = false;
  // The backfill's clients while it runs (owned by RunBackfill), for the destructor to cancel.
  std::vector<cluster::AdminClient*> backfilling_ RAILYARD_GUARDED_BY(mu_);
  std::thread thread_;
  std::thread backfill_thread_;  // Backfill::beside_polling.
  std::thread gap_thread_;       // Started by the first FillGap (under mu_).
};

LiveSource::LiveSource(ClusterState* state, QObject* parent) : QObject(parent), state_(state) {}

LiveSource::~LiveSource() { Stop(); }

void LiveSource::SetOptions(const Options& options) {
  options_ = options;
  Restart();
}

int LiveSource::AddNode(const QString& admin_address, const QString& token, QString* error,
                        const QString& name, std::optional<rpc::TlsClientOptions> tls) {
  std::string host;
  uint16_t port = 0;
  if (!ParseAdminAddress(admin_address, &host, &port, error)) return -1;
  const int index = state_->AddNode(admin_address.trimmed(), name);
  for (const Target& t : targets_) {
    if (t.index == index) return index;
  }
  targets_.push_back({index, admin_address.trimmed(), token, std::move(tls)});
  Restart();
  return index;
}

void LiveSource::ClearNodes() {
  Stop();
  targets_.clear();
}

void LiveSource::RemoveNode(int node) {
  if (node < 0 || node >= state_->NodeCount()) return;
  const bool running = Running();
  Stop();
  std::erase_if(targets_, [&](const Target& t) {
    // Its series goes with it: added again, it brings its past again.
    if (t.index == node) backfilled_.erase(t.address);
    return t.index == node;
  });
  for (Target& t : targets_) {
    if (t.index > node) --t.index;
  }
  state_->RemoveNode(node);
  if (running) Start();
}

void LiveSource::SetToken(int node, const QString& token) {
  for (Target& t : targets_) {
    if (t.index != node) continue;
    t.token = token;
    // Passed on even when unchanged: the poller resumes a node paused on a refused token.
    if (poller_) poller_->SetToken(node, token.toStdString());
  }
}

std::optional<rpc::TlsClientOptions> LiveSource::Tls(int node) const {
  for (const Target& t : targets_) {
    if (t.index == node) return t.tls;
  }
  return std::nullopt;
}

QString LiveSource::Token(int node) const {
  for (const Target& t : targets_) {
    if (t.index == node) return t.token;
  }
  return {};
}

void LiveSource::Start() {
  if (poller_) return;
  const quint64 generation = ++generation_;
  std::vector<cluster::PollTarget> targets;
  for (const Target& t : targets_) {
    std::string host;
    uint16_t port = 0;
    ParseAdminAddress(t.address, &host, &port, nullptr);
    targets.push_back({t.index, {host, port}, t.token.toStdString(), t.tls});
  }
  // The console has seen nothing of this cluster yet: its charts open with the nodes' own past.
  LivePoller::Backfill backfill;
  if (options_.backfill && !state_->AnyTelemetry()) {
    backfill.targets = targets;
    backfill.from_unix_ms = QDateTime::currentMSecsSinceEpoch() - options_.backfill_span.count();
  } else if (options_.backfill) {
    // Nodes added since: their own past, once each, beside the polling of the others.
    for (size_t i = 0; i < targets_.size(); ++i) {  // `targets` is in targets_'s order.
      if (state_->Node(targets_[i].index).telemetry ||
          !backfilled_.insert(targets_[i].address).second) {
        continue;
      }
      backfill.targets.push_back(targets[i]);
    }
    backfill.beside_polling = true;
    backfill.from_unix_ms = QDateTime::currentMSecsSinceEpoch() - options_.backfill_span.count();
  }
  if (backfill.from_unix_ms > 0 && !backfill.beside_polling) {
    for (const Target& t : targets_) backfilled_.insert(t.address);
  }
  const bool per_node = backfill.beside_polling;
  // Runs on the worker thread: only moves data into a queued call. `this` outlives the worker
  // (Stop() joins it), which is what RunOnReceiverThread asks.
  auto post = [this, generation](std::vector<ClusterState::Update> updates, qint64 now_ms) {
    RunOnReceiverThread(this, [this, generation, updates = std::move(updates), now_ms]() mutable {
      Deliver(generation, std::move(updates), now_ms);
    });
  };
  auto post_history = [this, generation, per_node](std::vector<NodeHistory> histories) {
    RunOnReceiverThread(this,
                        [this, generation, per_node, histories = std::move(histories)]() mutable {
                          if (per_node) {
                            DeliverNodePasts(generation, std::move(histories));
                          } else {
                            DeliverHistory(generation, std::move(histories));
                          }
                        });
  };
  auto post_gap = [this, generation](NodeHistory history) {
    RunOnReceiverThread(this, [this, generation, history = std::move(history)]() mutable {
      DeliverNodeGap(generation, std::move(history));
    });
  };
  poller_ =
      std::make_unique<LivePoller>(std::move(targets), options_, std::move(backfill),
                                   std::move(post), std::move(post_history), std::move(post_gap));
}

void LiveSource::Stop() {
  ++generation_;  // Batches already posted are dropped on arrival.
  poller_.reset();
  day_round_.reset();  // Its end mark, if still queued, was dropped with the poller.
}

void LiveSource::Restart() {
  if (!poller_) return;
  Stop();
  Start();
}

void LiveSource::Deliver(quint64 generation, std::vector<ClusterState::Update> updates,
                         qint64 now_ms) {
  if (generation != generation_.load()) return;
  if (options_.backfill) {
    // A node answering again after a silence the charts show as a gap: what its own recorder kept
    // meanwhile (it may have served on while the console could not reach it).
    for (const ClusterState::Update& u : updates) {
      if (!u.telemetry || u.node < 0 || u.node >= state_->NodeCount()) continue;
      const std::shared_ptr<const admin::Telemetry>& last = state_->Node(u.node).telemetry;
      if (last && u.telemetry->unix_ms() - last->unix_ms() > state_->StaleAfterMs()) {
        poller_->FillGap(u.node, last->unix_ms() + 1, u.telemetry->unix_ms() - 1);
      }
    }
  }
  QElapsedTimer apply;
  apply.start();
  state_->ApplyFrame(updates, now_ms);
  last_apply_ns_ = apply.nsecsElapsed();
  ++frames_;
  Q_EMIT FrameDelivered();
  for (const ClusterState::Update& u : updates) {
    if (u.token_refused) Q_EMIT TokenRefused(u.node, u.error);
  }
}

void LiveSource::DeliverHistory(quint64 generation, std::vector<NodeHistory> histories) {
  if (generation != generation_.load()) return;
  qint64 snapshots = 0;
  qint64 from_ms = 0;
  for (const NodeHistory& h : histories) {
    snapshots += static_cast<qint64>(h.snapshots.size());
    const qint64 first = h.snapshots.front()->unix_ms();
    from_ms = from_ms == 0 ? first : std::min(from_ms, first);
  }
  // Frames as polling at options_.poll_hz would have applied them.
  const qint64 frame_ms = static_cast<qint64>(1000.0 / std::max(0.1, options_.poll_hz));
  const qint64 until_ms = QDateTime::currentMSecsSinceEpoch();
  for (const HistoryFrame& frame :
       HistoryFrames(histories, frame_ms, state_->StaleAfterMs(), until_ms)) {
    state_->ApplyHistoryFrame(frame.updates, frame.now_ms);
  }
  Q_EMIT Backfilled(static_cast<int>(histories.size()), snapshots, from_ms);
  ReadDaysBehind(histories, /*whole_cluster=*/true);
}

void LiveSource::ReadDaysBehind(const std::vector<NodeHistory>& histories, bool whole_cluster) {
  if (options_.backfill_day_span.count() <= 0 || !poller_) return;
  const qint64 from = QDateTime::currentMSecsSinceEpoch() - options_.backfill_day_span.count();
  DayRound round;
  for (const NodeHistory& h : histories) {
    const qint64 first = h.snapshots.front()->unix_ms();
    if (first <= from) continue;
    poller_->FillGap(h.node, from, first - 1);
    round.until_ms[h.node] = first - 1;
  }
  // The cluster's sums over the same day, once every node's has come (a sum over some of them
  // would be low); only for the nodes backfilled together, whose sums the console began with.
  if (whole_cluster && !round.until_ms.empty()) {
    day_round_ = std::move(round);
    poller_->EndGapRound();
  }
}

void LiveSource::FinishDayRound() {
  if (!day_round_) return;
  DayRound round = std::move(*day_round_);
  day_round_.reset();
  if (round.pasts.empty()) return;
  // Each sum's width: the recorders' buckets for their downsampled day, else a poll period.
  qint64 width_ms = static_cast<qint64>(1000.0 / std::max(0.1, options_.poll_hz));
  for (const ClusterState::NodePast& p : round.pasts) {
    for (const auto& t : p.snapshots) {
      width_ms = std::max<qint64>(width_ms, t->downsampled().bucket_ms());
    }
  }
  state_->ApplyClusterPast(round.pasts, width_ms);
}

void LiveSource::DeliverNodeGap(quint64 generation, NodeHistory history) {
  if (generation != generation_.load()) return;
  if (history.node == LivePoller::kGapRoundEnd) {
    FinishDayRound();
    return;
  }
  if (history.node < 0 || history.node >= state_->NodeCount()) return;
  if (day_round_) {
    const auto until = day_round_->until_ms.find(history.node);
    if (until != day_round_->until_ms.end() &&
        history.snapshots.back()->unix_ms() <= until->second) {
      day_round_->pasts.push_back({history.node, history.snapshots});
    }
  }
  state_->ApplyNodePast(history.node, history.snapshots);
  Q_EMIT GapFilled(history.node, static_cast<qint64>(history.snapshots.size()),
                   history.snapshots.front()->unix_ms(), history.snapshots.back()->unix_ms());
}

void LiveSource::DeliverNodePasts(quint64 generation, std::vector<NodeHistory> histories) {
  if (generation != generation_.load()) return;
  qint64 snapshots = 0;
  qint64 from_ms = 0;
  for (const NodeHistory& h : histories) {
    if (h.node < 0 || h.node >= state_->NodeCount()) continue;
    state_->ApplyNodePast(h.node, h.snapshots);
    snapshots += static_cast<qint64>(h.snapshots.size());
    const qint64 first = h.snapshots.front()->unix_ms();
    from_ms = from_ms == 0 ? first : std::min(from_ms, first);
  }
  if (!histories.empty()) Q_EMIT Backfilled(static_cast<int>(histories.size()), snapshots, from_ms);
  ReadDaysBehind(histories, /*whole_cluster=*/false);
}

}  // namespace railyard::ui
