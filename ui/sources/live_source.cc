#include "ui/sources/live_source.h"

#include <QDateTime>
#include <QMetaObject>
#include <QPointer>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "core/node/admin_client.h"
#include "core/rpc/endpoint.h"

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

// The worker: one thread, one AdminClient per reachable node, rounds every poll period.
class LivePoller {
 public:
  struct Target {
    int index = -1;
    rpc::Endpoint endpoint;
    std::string token;
    std::unique_ptr<node::AdminClient> client;
    Clock::time_point connect_started;
    Clock::time_point next_attempt;
    std::chrono::milliseconds backoff{0};
  };
  using Deliver = std::function<void(std::vector<ClusterState::Update>, qint64 now_ms)>;

  LivePoller(std::vector<Target> targets, LiveSource::Options options, Deliver deliver)
      : targets_(std::move(targets)),
        options_(options),
        deliver_(std::move(deliver)),
        rng_(std::random_device{}()) {
    thread_ = std::thread([this] { Run(); });
  }
  // A new token for one node, taken at the start of the next round (the node reconnects with
  // it); the other nodes keep their connections.
  void SetToken(int index, std::string token) {
    std::lock_guard lock(mu_);
    new_tokens_[index] = std::move(token);
  }

  ~LivePoller() {
    std::shared_ptr<Round> round;
    {
      std::lock_guard lock(mu_);
      stop_ = true;
      round = current_.lock();
    }
    cv_.notify_all();
    if (round) {
      std::lock_guard lock(round->mu);  // Wakes a round waiting for answers.
      round->cv.notify_all();
    }
    thread_.join();
  }

 private:
  // Answers of one round; shared with the callbacks, which may outlive the round.
  struct Round {
    std::mutex mu;
    std::condition_variable cv;
    int pending = 0;
    std::vector<std::pair<size_t, std::pair<rpc::Status, admin::Telemetry>>> answers;
  };

  void Fail(Target& t, const std::string& why, std::vector<ClusterState::Update>* out) {
    t.client.reset();
    t.backoff = t.backoff.count() == 0 ? options_.backoff_min
                                       : std::min(options_.backoff_max, t.backoff * 2);
    std::uniform_real_distribution<double> jitter(0.8, 1.2);
    t.next_attempt = Clock::now() + std::chrono::milliseconds(
                                        static_cast<int64_t>(t.backoff.count() * jitter(rng_)));
    out->push_back({t.index, nullptr, QString::fromStdString(why)});
  }

  void Run() {
    const auto period =
        std::chrono::milliseconds(static_cast<int64_t>(1000.0 / std::max(0.1, options_.poll_hz)));
    Clock::time_point next_round = Clock::now();
    while (true) {
      {
        std::unique_lock lock(mu_);
        if (cv_.wait_until(lock, next_round, [this] { return stop_; })) return;
      }
      const Clock::time_point start = Clock::now();
      next_round = std::max(next_round + period, start);
      std::map<int, std::string> tokens;
      {
        std::lock_guard lock(mu_);
        tokens.swap(new_tokens_);
      }
      for (Target& t : targets_) {
        auto it = tokens.find(t.index);
        if (it == tokens.end() || it->second == t.token) continue;
        t.token = it->second;
        t.client.reset();
        t.backoff = std::chrono::milliseconds(0);
        t.next_attempt = {};
      }
      std::vector<ClusterState::Update> updates;
      auto round = std::make_shared<Round>();
      {
        std::lock_guard lock(mu_);
        current_ = round;
      }
      std::vector<size_t> asked;
      for (size_t i = 0; i < targets_.size(); ++i) {
        Target& t = targets_[i];
        if (!t.client) {
          if (start < t.next_attempt) continue;  // Backing off: the node stays unreachable.
          t.client = std::make_unique<node::AdminClient>(t.endpoint, t.token, "railyard-console");
          if (rpc::Status s = t.client->StartConnecting(); !s.ok()) {
            Fail(t, s.ToString(), &updates);
            continue;
          }
          t.connect_started = start;
        }
        if (!t.client->Connected()) {
          if (start - t.connect_started > options_.connect_timeout) {
            Fail(t, "cannot reach the admin service at " + t.endpoint.ToString(), &updates);
          }
          continue;
        }
        {
          std::lock_guard lock(round->mu);
          ++round->pending;
        }
        asked.push_back(i);
        t.client->AsyncTelemetry(
            [round, i](rpc::Status status, admin::Telemetry&& telemetry) {
              std::lock_guard lock(round->mu);
              round->answers.push_back({i, {std::move(status), std::move(telemetry)}});
              --round->pending;
              round->cv.notify_all();
            },
            options_.answer_timeout);
      }
      std::vector<bool> answered(targets_.size(), false);
      {
        std::unique_lock lock(round->mu);
        round->cv.wait_until(lock, start + options_.answer_timeout + std::chrono::milliseconds(50),
                             [&] { return round->pending == 0 || stopping(); });
        for (auto& [i, answer] : round->answers) {
          answered[i] = true;
          Target& t = targets_[i];
          if (answer.first.ok()) {
            t.backoff = std::chrono::milliseconds(0);
            updates.push_back(
                {t.index, std::make_shared<const admin::Telemetry>(std::move(answer.second)), {}});
          } else {
            updates.push_back({t.index, nullptr, QString::fromStdString(answer.first.ToString())});
          }
        }
        round->answers.clear();
      }
      // Failures (and answers that did not come in time) drop the connection and back off.
      for (const ClusterState::Update& u : updates) {
        if (u.telemetry) continue;
        for (Target& t : targets_) {
          if (t.index == u.node && t.client) {
            std::vector<ClusterState::Update> ignored;
            Fail(t, {}, &ignored);
          }
        }
      }
      for (size_t i : asked) {
        if (!answered[i]) Fail(targets_[i], "no answer in time", &updates);
      }
      if (stopping()) return;
      deliver_(std::move(updates), QDateTime::currentMSecsSinceEpoch());
    }
  }

  bool stopping() {
    std::lock_guard lock(mu_);
    return stop_;
  }

  std::vector<Target> targets_;  // Worker thread only.
  const LiveSource::Options options_;
  const Deliver deliver_;
  std::mt19937 rng_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;                      // GUARDED_BY(mu_)
  std::weak_ptr<Round> current_;           // GUARDED_BY(mu_)
  std::map<int, std::string> new_tokens_;  // GUARDED_BY(mu_)
  std::thread thread_;
};

LiveSource::LiveSource(ClusterState* state, QObject* parent) : QObject(parent), state_(state) {}

LiveSource::~LiveSource() { stop(); }

void LiveSource::setOptions(const Options& options) {
  options_ = options;
  Restart();
}

int LiveSource::addNode(const QString& admin_address, const QString& token, QString* error,
                        const QString& name) {
  std::string host;
  uint16_t port = 0;
  if (!ParseAdminAddress(admin_address, &host, &port, error)) return -1;
  const int index = state_->AddNode(admin_address.trimmed(), name);
  for (Target& t : targets_) {
    if (t.index == index) {
      if (!token.isEmpty()) t.token = token;
      Restart();
      return index;
    }
  }
  targets_.push_back({index, admin_address.trimmed(), token});
  Restart();
  return index;
}

void LiveSource::clearNodes() {
  stop();
  targets_.clear();
}

void LiveSource::setToken(int node, const QString& token) {
  for (Target& t : targets_) {
    if (t.index == node && t.token != token) {
      t.token = token;
      if (poller_) poller_->SetToken(node, token.toStdString());
    }
  }
}

QString LiveSource::token(int node) const {
  for (const Target& t : targets_) {
    if (t.index == node) return t.token;
  }
  return {};
}

void LiveSource::start() {
  if (poller_) return;
  const quint64 generation = ++generation_;
  std::vector<LivePoller::Target> targets;
  for (const Target& t : targets_) {
    LivePoller::Target target;
    target.index = t.index;
    std::string host;
    uint16_t port = 0;
    ParseAdminAddress(t.address, &host, &port, nullptr);
    target.endpoint = {host, port};
    target.token = t.token.toStdString();
    targets.push_back(std::move(target));
  }
  // Runs on the worker thread: only copies data into a queued call.
  auto deliver = [this, generation](std::vector<ClusterState::Update> updates, qint64 now_ms) {
    QMetaObject::invokeMethod(
        this,
        [guard = QPointer<LiveSource>(this), generation, updates = std::move(updates),
         now_ms]() mutable {
          if (guard) guard->Deliver(generation, std::move(updates), now_ms);
        },
        Qt::QueuedConnection);
  };
  poller_ = std::make_unique<LivePoller>(std::move(targets), options_, std::move(deliver));
}

void LiveSource::stop() {
  ++generation_;  // Batches already posted are dropped on arrival.
  poller_.reset();
}

void LiveSource::Restart() {
  if (!poller_) return;
  stop();
  start();
}

void LiveSource::Deliver(quint64 generation, std::vector<ClusterState::Update> updates,
                         qint64 now_ms) {
  if (generation != generation_.load()) return;
  state_->ApplyFrame(updates, now_ms);
  ++frames_;
  Q_EMIT frameDelivered();
}

}  // namespace railyard::ui
