// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/telemetry_poller.h"

#include <algorithm>

#include "core/cluster/admin_client.h"
#include "core/cluster/admin_methods.h"

namespace railyard::cluster {

using Clock = std::chrono::steady_clock;

bool IsTokenRefused(const rpc::Status& status) {
  return status.code() == rpc::Code::kUnauthenticated &&
         status.message().rfind(admin_methods::kLockedOutReason, 0) != 0;
}

struct TelemetryPoller::Node {
  PollTarget target;
  std::unique_ptr<AdminClient> client;
  Clock::time_point connect_started;
  Clock::time_point next_attempt;
  std::chrono::milliseconds backoff{0};
  bool paused = false;  // Its token was refused: not polled until a new token arrives.
};

// The answers of one round; shared with the callbacks, which may outlive the round.
struct TelemetryPoller::Round {
  base::Mutex mu;
  base::CondVar cv;
  int pending RAILYARD_GUARDED_BY(mu) = 0;
  std::vector<std::pair<size_t, std::pair<rpc::Status, admin::Telemetry>>> answers
      RAILYARD_GUARDED_BY(mu);
};

TelemetryPoller::TelemetryPoller(std::vector<PollTarget> targets, PollerOptions options)
    : options_(std::move(options)),
      io_(std::make_shared<rpc::IoThreads>(options_.io_threads)),
      rng_(std::random_device{}()) {
  for (PollTarget& target : targets)
    nodes_.push_back({std::move(target), nullptr, {}, {}, {}, false});
}

// Callbacks of a round still in flight hold the Round, not the poller; the clients' own
// destructors complete them with CANCELLED.
TelemetryPoller::~TelemetryPoller() = default;

void TelemetryPoller::SetToken(int id, std::string token) {
  base::MutexLock lock(mu_);
  new_tokens_[id] = std::move(token);
}

void TelemetryPoller::Cancel() {
  std::shared_ptr<Round> round;
  {
    base::MutexLock lock(mu_);
    cancelled_ = true;
    round = current_.lock();
  }
  if (round) {
    base::MutexLock lock(round->mu);  // Wakes a round waiting for answers.
    round->cv.NotifyAll();
  }
}

bool TelemetryPoller::cancelled() {
  base::MutexLock lock(mu_);
  return cancelled_;
}

void TelemetryPoller::Fail(Node& node, rpc::Status why, std::vector<PollResult>* out) {
  node.client.reset();
  node.backoff = node.backoff.count() == 0 ? options_.backoff_min
                                           : std::min(options_.backoff_max, node.backoff * 2);
  std::uniform_real_distribution<double> jitter(0.8, 1.2);
  node.next_attempt = Clock::now() + std::chrono::milliseconds(
                                         static_cast<int64_t>(node.backoff.count() * jitter(rng_)));
  if (out) out->push_back({node.target.id, std::move(why), nullptr});
}

void TelemetryPoller::TakeNewTokens() {
  std::map<int, std::string> tokens;
  {
    base::MutexLock lock(mu_);
    tokens.swap(new_tokens_);
  }
  for (Node& node : nodes_) {
    auto it = tokens.find(node.target.id);
    if (it == tokens.end() || (it->second == node.target.token && !node.paused)) continue;
    node.target.token = it->second;
    node.paused = false;
    node.client.reset();
    node.backoff = std::chrono::milliseconds(0);
    node.next_attempt = {};
  }
}

void TelemetryPoller::Connect(Clock::time_point now, std::vector<PollResult>* out) {
  for (Node& node : nodes_) {
    // Connected, backing off, or waiting for a new token.
    if (node.client || node.paused || now < node.next_attempt) continue;
    node.client = std::make_unique<AdminClient>(node.target.admin, node.target.token,
                                                options_.client_name, node.target.tls, io_);
    if (rpc::Status s = node.client->StartConnecting(); !s.ok()) {
      Fail(node, std::move(s), out);
      continue;
    }
    node.connect_started = now;
  }
  if (options_.wait_for_connect) {
    for (Node& node : nodes_) {
      if (!node.client) continue;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          node.connect_started + options_.connect_timeout - Clock::now());
      node.client->WaitConnected(std::max(left, std::chrono::milliseconds(0)));
    }
  }
  for (Node& node : nodes_) {
    if (!node.client || node.client->Connected()) continue;
    if (options_.wait_for_connect || now - node.connect_started > options_.connect_timeout) {
      Fail(node, node.client->NotConnectedStatus(), out);
    }
  }
}

void TelemetryPoller::Ask(const std::shared_ptr<Round>& round, std::vector<size_t>* asked) {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    Node& node = nodes_[i];
    if (!node.client || !node.client->Connected()) continue;
    {
      base::MutexLock lock(round->mu);
      ++round->pending;
    }
    asked->push_back(i);
    node.client->AsyncTelemetry(
        [round, i](rpc::Status status, admin::Telemetry&& telemetry) {
          base::MutexLock lock(round->mu);
          round->answers.push_back({i, {std::move(status), std::move(telemetry)}});
          --round->pending;
          round->cv.NotifyAll();
        },
        options_.answer_timeout);
  }
}

rpc::Status TelemetryPoller::NoAnswerInTime() const {
  // What an operator sees for a stopped (SIGSTOP) or wedged node: connected, but silent.
  return {rpc::Code::kDeadlineExceeded, "timed out: no answer within " +
                                            std::to_string(options_.answer_timeout.count()) +
                                            " ms (the node is stopped, overloaded or cut off)"};
}

void TelemetryPoller::Collect(const std::shared_ptr<Round>& round, Clock::time_point start,
                              const std::vector<size_t>& asked, std::vector<PollResult>* out) {
  std::vector<bool> answered(nodes_.size(), false);
  {
    base::MutexLock lock(round->mu);
    const Clock::time_point deadline =
        start + options_.answer_timeout + std::chrono::milliseconds(50);
    while (round->pending > 0 && !cancelled() && round->cv.WaitUntil(round->mu, deadline)) {
    }
    for (auto& [i, answer] : round->answers) {
      answered[i] = true;
      Node& node = nodes_[i];
      if (answer.first.ok()) {
        node.backoff = std::chrono::milliseconds(0);
        out->push_back({node.target.id, rpc::Status::Ok(),
                        std::make_shared<const admin::Telemetry>(std::move(answer.second))});
      } else if (options_.pause_on_refused_token && IsTokenRefused(answer.first)) {
        // Asking again with the same token would only count towards the node's lockout.
        out->push_back({node.target.id, answer.first, nullptr, true});
        node.client.reset();
        node.paused = true;
      } else {
        // A failed call drops the connection and backs off; the answer says why.
        const rpc::Status why =
            answer.first.code() == rpc::Code::kDeadlineExceeded ? NoAnswerInTime() : answer.first;
        out->push_back({node.target.id, why, nullptr});
        Fail(node, {}, nullptr);
      }
    }
    round->answers.clear();
  }
  for (size_t i : asked) {
    if (!answered[i]) Fail(nodes_[i], NoAnswerInTime(), out);
  }
}

std::vector<PollResult> TelemetryPoller::PollRound() {
  std::vector<PollResult> results;
  if (cancelled()) return results;
  const Clock::time_point start = Clock::now();
  TakeNewTokens();
  Connect(start, &results);
  auto round = std::make_shared<Round>();
  {
    base::MutexLock lock(mu_);
    current_ = round;
  }
  std::vector<size_t> asked;
  Ask(round, &asked);
  Collect(round, Clock::now(), asked, &results);
  return results;
}

}  // namespace railyard::cluster
