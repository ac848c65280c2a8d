// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

namespace railyard::bench {

struct LoopOptions {
  size_t concurrency = 1;
  std::chrono::nanoseconds warmup{0};
  std::chrono::nanoseconds duration{0};
  // How long Run waits, after the measured window, for the requests still in flight to end.
  std::chrono::nanoseconds drain_timeout{std::chrono::seconds(10)};
  // How long a caller waits before issuing again after a failed request.
  std::chrono::nanoseconds error_backoff{std::chrono::milliseconds(1)};
  // Called on Run's thread as the measured window opens and as it closes (to sample what the
  // window costs elsewhere, e.g. a server's CPU time); may be empty.
  std::function<void()> at_window_start, at_window_end;
};

struct LoopResult {
  uint64_t requests = 0;  // Successful requests that ended inside the measured window.
  // Failed requests over the whole run (warm-up, measured window and drain), so that no failure
  // goes unreported.
  uint64_t errors = 0;
  double duration_s = 0;              // Length of the measured window.
  std::vector<int64_t> latencies_ns;  // One per request counted in `requests`.
  bool drained = false;        // Every request ended within the drain timeout; if false, the counts
                               // above are not filled in.
  size_t process_threads = 0;  // Threads of this process when the measured window closed.
};

// Closed-loop load: `concurrency` callers, each with exactly one request outstanding at all times;
// when a request ends, its caller issues the next one from the completing thread. Latency is the
// steady_clock time from issuing a request to hearing that it ended.
//
// The system under test supplies `issue(caller)`, which starts one request and arranges for
// Done(caller, ok) to be called exactly once when it ends, on any thread. Done(caller, false) may
// run inside `issue` itself (a request refused at once); Done(caller, true) must not. A caller
// whose request failed waits `error_backoff` on the loop's own timer thread before issuing again,
// so a system that fails fast neither spins nor recurses. That thread is idle while nothing fails.
//
// Thread safety: Run from one thread, once. Done from any thread, concurrently for distinct
// callers; it must stay callable until the system under test has stopped, even after Run returned.
class ClosedLoop {
 public:
  using IssueFn = std::function<void(size_t caller)>;

  explicit ClosedLoop(LoopOptions options);
  ~ClosedLoop();
  ClosedLoop(const ClosedLoop&) = delete;
  ClosedLoop& operator=(const ClosedLoop&) = delete;

  // Starts every caller, warms up, measures for the duration, then stops issuing and waits, up to
  // the drain timeout, for the requests in flight to end. Every wait in it is bounded.
  LoopResult Run(IssueFn issue);
  void Done(size_t caller, bool ok);
  // Ends the warm-up and the measured window now (a load of a fixed size: the caller that issued
  // the last request says so); from any thread.
  void Finish();

 private:
  enum class Phase { kWarmup, kMeasuring, kStopping };

  // Written only by the thread that completes the caller's current request, so the fields need no
  // lock; each request's machinery orders one completion before the next.
  struct alignas(64) Caller {
    std::chrono::steady_clock::time_point started{};
    uint64_t requests = 0;
    uint64_t errors = 0;
    std::vector<int64_t> latencies_ns;
    std::optional<asio::steady_timer> backoff;
  };

  void Issue(size_t caller);
  void EndCaller();
  // Sleeps until `deadline` or Finish().
  void WaitUntil(std::chrono::steady_clock::time_point deadline);

  const LoopOptions options_;
  IssueFn issue_;
  asio::io_context timer_io_;  // Runs the error backoff timers.
  std::vector<Caller> callers_;
  std::atomic<Phase> phase_{Phase::kWarmup};
  std::atomic<size_t> outstanding_{0};  // Callers that have not ended yet.
  std::mutex finish_mu_;
  std::condition_variable finish_cv_;
  bool finish_ = false;  // Guarded by finish_mu_.
};

}  // namespace railyard::bench
