// SPDX-License-Identifier: Apache-2.0
#include "ui/sources/live_source.h"

#include <QDateTime>
#include <map>
#include <thread>

#include "core/base/mutex.h"
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
  using Deliver = std::function<void(std::vector<ClusterState::Update>, qint64 now_ms)>;

  LivePoller(std::vector<cluster::PollTarget> targets, const LiveSource::Options& options,
             Deliver deliver)
      : poller_(std::move(targets), PollerOptionsFrom(options)),
        period_(static_cast<int64_t>(1000.0 / std::max(0.1, options.poll_hz))),
        deliver_(std::move(deliver)) {
    thread_ = std::thread([this] { Run(); });
  }
  ~LivePoller() {
    {
      base::MutexLock lock(mu_);
      stop_ = true;
    }
    cv_.NotifyAll();
    poller_.Cancel();
    thread_.join();
  }
  void SetToken(int index, std::string token) { poller_.SetToken(index, std::move(token)); }

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

  void Run() {
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

  cluster::TelemetryPoller poller_;
  const std::chrono::milliseconds period_;
  const Deliver deliver_;
  base::Mutex mu_;
  base::CondVar cv_;
  bool stop_ GUARDED_BY(mu_) = false;
  std::thread thread_;
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
  std::erase_if(targets_, [node](const Target& t) { return t.index == node; });
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
  // Runs on the worker thread: only moves data into a queued call. `this` outlives the worker
  // (Stop() joins it), which is what RunOnReceiverThread asks.
  auto post = [this, generation](std::vector<ClusterState::Update> updates, qint64 now_ms) {
    RunOnReceiverThread(this, [this, generation, updates = std::move(updates), now_ms]() mutable {
      Deliver(generation, std::move(updates), now_ms);
    });
  };
  poller_ = std::make_unique<LivePoller>(std::move(targets), options_, std::move(post));
}

void LiveSource::Stop() {
  ++generation_;  // Batches already posted are dropped on arrival.
  poller_.reset();
}

void LiveSource::Restart() {
  if (!poller_) return;
  Stop();
  Start();
}

void LiveSource::Deliver(quint64 generation, std::vector<ClusterState::Update> updates,
                         qint64 now_ms) {
  if (generation != generation_.load()) return;
  state_->ApplyFrame(updates, now_ms);
  ++frames_;
  Q_EMIT FrameDelivered();
  for (const ClusterState::Update& u : updates) {
    if (u.token_refused) Q_EMIT TokenRefused(u.node, u.error);
  }
}

}  // namespace railyard::ui
