// SPDX-License-Identifier: Apache-2.0
#include "core/load/closed_loop_load.h"

#include <thread>
#include <utility>

namespace railyard::load {

ClosedLoopLoad::ClosedLoopLoad(rpc::Client& client, std::string method, std::string payload,
                               size_t concurrency, std::chrono::milliseconds timeout)
    : ClosedLoopLoad(
          client,
          [request = LoadRequest{std::move(method), std::move(payload)}] { return request; },
          concurrency, timeout) {}

ClosedLoopLoad::ClosedLoopLoad(rpc::Client& client, RequestFactory next_request, size_t concurrency,
                               std::chrono::milliseconds timeout, ResultObserver observer)
    : client_(client),
      next_request_(std::move(next_request)),
      observer_(std::move(observer)),
      concurrency_(concurrency),
      timeout_(timeout),
      pacing_thread_([this] { pacing_.run(); }) {}

ClosedLoopLoad::~ClosedLoopLoad() {
  Stop();
  WaitIdle(std::chrono::seconds(10));
  pacing_work_.reset();
  pacing_.stop();
  pacing_thread_.join();
}

void ClosedLoopLoad::Start() {
  for (size_t i = 0; i < concurrency_; ++i) Issue();
}

void ClosedLoopLoad::Stop() { stopping_ = true; }

bool ClosedLoopLoad::WaitIdle(std::chrono::milliseconds timeout) {
  const auto give_up = std::chrono::steady_clock::now() + timeout;
  while (outstanding_.load() != 0) {
    if (std::chrono::steady_clock::now() >= give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

std::map<std::string, std::pair<uint64_t, std::string>> ClosedLoopLoad::failures() const {
  base::MutexLock lock(mu_);
  return failures_;
}

void ClosedLoopLoad::Issue() {
  if (stopping_) return;
  outstanding_.fetch_add(1);
  Send(std::make_shared<LoadRequest>(next_request_()), std::chrono::steady_clock::now());
}

void ClosedLoopLoad::Send(std::shared_ptr<LoadRequest> request,
                          std::chrono::steady_clock::time_point start) {
  const std::string method = request->method;
  std::string payload = request->payload;
  rpc::Client& client = request->client ? *request->client : client_;
  client.AsyncCall(
      method, std::move(payload),
      [this, request, start](rpc::CallResult&& result) {
        if (result.status.code() == rpc::Code::kBehind && request->fallback) {
          request->client = std::exchange(request->fallback, nullptr);
          Send(request, start);  // Still the same call in flight.
          return;
        }
        if (observer_) observer_(*request, result, std::chrono::steady_clock::now() - start);
        if (result.status.ok()) {
          succeeded_.fetch_add(1);
          Issue();
        } else {
          failed_.fetch_add(1);
          {
            base::MutexLock lock(mu_);
            auto& [count, first_message] =
                failures_[std::string(rpc::CodeName(result.status.code()))];
            if (count++ == 0) first_message = result.status.message();
          }
          // Runtime failures (pool exhausted, unavailable) come straight back: pace them.
          if (static_cast<int>(result.status.code()) < 100) {
            IssueLater();
          } else {
            Issue();
          }
        }
        outstanding_.fetch_sub(1);
      },
      timeout_);
}

void ClosedLoopLoad::IssueLater() {
  if (stopping_) return;
  outstanding_.fetch_add(1);
  auto timer = std::make_shared<asio::steady_timer>(pacing_, std::chrono::milliseconds(1));
  timer->async_wait([this, timer](const asio::error_code&) {
    Issue();
    outstanding_.fetch_sub(1);
  });
}

}  // namespace railyard::load
