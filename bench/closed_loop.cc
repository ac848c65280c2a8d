// SPDX-License-Identifier: Apache-2.0
#include "bench/closed_loop.h"

#include <filesystem>
#include <thread>

namespace railyard::bench {
namespace {

using Clock = std::chrono::steady_clock;

size_t CountProcessThreads() {
  std::error_code ec;
  size_t threads = 0;
  for (std::filesystem::directory_iterator it("/proc/self/task", ec), end; !ec && it != end;
       it.increment(ec)) {
    ++threads;
  }
  return threads;
}

}  // namespace

ClosedLoop::ClosedLoop(LoopOptions options)
    : options_(options), callers_(options.concurrency == 0 ? 1 : options.concurrency) {
  for (Caller& caller : callers_) {
    caller.backoff.emplace(timer_io_);
    caller.latencies_ns.reserve(4096);
  }
}

ClosedLoop::~ClosedLoop() = default;

LoopResult ClosedLoop::Run(IssueFn issue) {
  issue_ = std::move(issue);
  auto work = asio::make_work_guard(timer_io_);
  std::thread timer_thread([this] { timer_io_.run(); });

  outstanding_.store(callers_.size());
  for (size_t i = 0; i < callers_.size(); ++i) Issue(i);
  WaitUntil(Clock::now() + options_.warmup);

  LoopResult result;
  if (options_.at_window_start) options_.at_window_start();
  const Clock::time_point start = Clock::now();
  phase_.store(Phase::kMeasuring);
  WaitUntil(start + options_.duration);
  const Clock::time_point end = Clock::now();
  phase_.store(Phase::kStopping);
  if (options_.at_window_end) options_.at_window_end();
  result.process_threads = CountProcessThreads();
  result.duration_s = std::chrono::duration<double>(end - start).count();

  const Clock::time_point give_up = end + options_.drain_timeout;
  while (outstanding_.load(std::memory_order_acquire) > 0 && Clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  result.drained = outstanding_.load(std::memory_order_acquire) == 0;

  // Drained means no backoff wait is pending either, so stopping the timer thread drops nothing.
  work.reset();
  timer_io_.stop();
  timer_thread.join();
  if (!result.drained) return result;

  size_t samples = 0;
  for (const Caller& caller : callers_) samples += caller.latencies_ns.size();
  result.latencies_ns.reserve(samples);
  for (const Caller& caller : callers_) {
    result.requests += caller.requests;
    result.errors += caller.errors;
    result.latencies_ns.insert(result.latencies_ns.end(), caller.latencies_ns.begin(),
                               caller.latencies_ns.end());
  }
  return result;
}

void ClosedLoop::WaitUntil(Clock::time_point deadline) {
  std::unique_lock lock(finish_mu_);
  finish_cv_.wait_until(lock, deadline, [this] { return finish_; });
}

void ClosedLoop::Finish() {
  {
    std::lock_guard lock(finish_mu_);
    finish_ = true;
  }
  finish_cv_.notify_all();
}

void ClosedLoop::Issue(size_t caller) {
  callers_[caller].started = Clock::now();
  issue_(caller);
}

void ClosedLoop::EndCaller() { outstanding_.fetch_sub(1, std::memory_order_release); }

void ClosedLoop::Done(size_t caller_index, bool ok) {
  const Clock::time_point now = Clock::now();
  Caller& caller = callers_[caller_index];
  const Phase phase = phase_.load();
  if (!ok) {
    ++caller.errors;
  } else if (phase == Phase::kMeasuring) {
    ++caller.requests;
    caller.latencies_ns.push_back(std::chrono::nanoseconds(now - caller.started).count());
  }
  if (phase == Phase::kStopping) {
    EndCaller();
    return;
  }
  if (ok) {
    Issue(caller_index);
    return;
  }
  caller.backoff->expires_after(options_.error_backoff);
  caller.backoff->async_wait([this, caller_index](const asio::error_code& ec) {
    if (ec || phase_.load() == Phase::kStopping) {
      EndCaller();
      return;
    }
    Issue(caller_index);
  });
}

}  // namespace railyard::bench
