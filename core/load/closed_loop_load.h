// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "core/base/mutex.h"
#include "core/rpc/client.h"

namespace railyard::load {

struct LoadRequest {
  std::string method;
  std::string payload;
  // Where to send it (e.g. writes to the updater only); null: the loop's own client. Must outlive
  // the loop, like that one.
  rpc::Client* client = nullptr;
  // Where to send it once more if it comes back BEHIND from every replica tried (a read whose
  // position none had applied in time): the updater, which holds every write it acknowledged.
  // Null: BEHIND is the answer. Must outlive the loop too.
  rpc::Client* fallback = nullptr;
  uint64_t key = 0;  // The caller's own: which document the call is about, for the observer.
};
// Makes the next request; called from any thread, possibly concurrently.
using RequestFactory = std::function<LoadRequest()>;
// Sees every completed call; called on the client's I/O threads, must not block.
using ResultObserver = std::function<void(const LoadRequest& request, const rpc::CallResult& result,
                                          std::chrono::nanoseconds latency)>;

// Keeps a fixed number of calls in flight on a Client: each completion issues the next call, until
// Stop(). The building block of load generation, the demo and the failover tests. After a runtime
// failure (pool exhausted, unavailable) a loop pauses a millisecond before its next call.
//
// Thread safety: all methods may be called from any thread. The Client must outlive this object
// and Stop() + WaitIdle() must be called before either is destroyed.
class ClosedLoopLoad {
 public:
  // The same request, over and over.
  ClosedLoopLoad(rpc::Client& client, std::string method, std::string payload, size_t concurrency,
                 std::chrono::milliseconds timeout = {});
  ClosedLoopLoad(rpc::Client& client, RequestFactory next_request, size_t concurrency,
                 std::chrono::milliseconds timeout = {}, ResultObserver observer = {});
  ~ClosedLoopLoad();
  ClosedLoopLoad(const ClosedLoopLoad&) = delete;
  ClosedLoopLoad& operator=(const ClosedLoopLoad&) = delete;

  void Start();
  void Stop();
  // Waits until no call is in flight; false on timeout.
  bool WaitIdle(std::chrono::milliseconds timeout);

  uint64_t succeeded() const { return succeeded_.load(); }
  uint64_t failed() const { return failed_.load(); }
  // Failed calls by status code name, with the first message seen for each.
  std::map<std::string, std::pair<uint64_t, std::string>> failures() const;

 private:
  void Issue();
  // Sends `request` on its client; `start` is when it was first sent.
  void Send(std::shared_ptr<LoadRequest> request, std::chrono::steady_clock::time_point start);
  // Issues again after a short pause, on the pacing thread: a refused call comes straight back,
  // and pausing on the client's I/O thread would starve the acquirer that refills the pool.
  void IssueLater();

  rpc::Client& client_;
  const RequestFactory next_request_;
  const ResultObserver observer_;
  const size_t concurrency_;
  const std::chrono::milliseconds timeout_;
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> outstanding_{0};
  std::atomic<uint64_t> succeeded_{0};
  std::atomic<uint64_t> failed_{0};
  asio::io_context pacing_;
  asio::executor_work_guard<asio::io_context::executor_type> pacing_work_{pacing_.get_executor()};
  std::thread pacing_thread_;
  mutable base::Mutex mu_;
  std::map<std::string, std::pair<uint64_t, std::string>> failures_ RAILYARD_GUARDED_BY(mu_);
};

}  // namespace railyard::load
