// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

#include "core/balance/policy.h"

namespace railyard::balance {

// An adaptive concurrency limit for one backend, in the style of Netflix's concurrency-limits
// AIMD limiter: a request needs a lease; the limit grows by one on a success while the limit is in
// use, and shrinks multiplicatively on a drop. Drops are timeouts, rejections (the backend said it
// is overloaded or leaving), and latency growth: a success whose latency, smoothed over the last
// few samples, exceeds `latency_tolerance` x the long-run average.
//
// Why AIMD and not the gradient limiter: a client sees only its own share of a backend's traffic,
// often a few requests per second, so a gradient limiter's estimate of the no-load latency (the
// quantity its whole limit is scaled by) is noisy and slow to form, and with a wide spread of
// query costs it mistakes an expensive query for queueing and shrinks the limit on every one. AIMD
// needs no such estimate: its decisions are one comparison per sample, it converges from any start
// (a sawtooth around the right limit, as TCP does), it behaves the same at a trickle and under
// load, and it is easy to predict and explain in telemetry. Its latency trigger compares two
// averages of the same backend rather than trusting an absolute baseline.
//
// Errors and application results (kError, kIgnored) release the lease without a sample: whether
// the backend is healthy is the success rate's business; the limiter protects it from overload.
//
// Thread safety: none.
class AimdLimiter {
 public:
  struct Options {
    uint32_t initial_limit = 20;
    uint32_t min_limit = 1;
    uint32_t max_limit = 100;
    double backoff = 0.9;            // Multiplied into the limit on a drop.
    double latency_tolerance = 2.0;  // Short-run over long-run latency that counts as a drop.
    uint32_t warmup_samples = 10;    // Latency samples before latency growth can count.
  };
  AimdLimiter() : AimdLimiter(Options{}) {}
  explicit AimdLimiter(Options options);

  // Takes a lease if fewer than limit() are out.
  bool TryAcquire();
  // Returns a lease taken with TryAcquire, with how the attempt ended.
  void Release(Result result, Duration latency);

  uint32_t limit() const;
  uint32_t in_flight() const { return in_flight_; }
  uint64_t drops() const { return drops_; }

 private:
  void Drop();

  Options options_;
  double limit_;
  uint32_t in_flight_ = 0;
  double short_latency_ = 0, long_latency_ = 0;
  uint64_t samples_ = 0;
  uint64_t drops_ = 0;
};

}  // namespace railyard::balance
