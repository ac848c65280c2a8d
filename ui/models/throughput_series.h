// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtGlobal>
#include <cmath>
#include <cstddef>

#include "ui/models/ring_buffer.h"

namespace railyard::ui {

struct ThroughputSample {
  qint64 t_ms = 0;  // Cluster clock.
  double requests_per_s = 0;
  double errors_per_s = 0;
  double rejections_per_s = 0;
  double p50_us = 0;
  double p99_us = 0;

  // A gap: from t_ms the node gave no data (unreachable, stale) until its next sample. Every
  // figure is NaN, which the plots draw as a break in the line (docs/figures.md).
  static ThroughputSample Gap(qint64 t_ms);
  bool IsGap() const { return std::isnan(requests_per_s); }
};

// One node's (or the cluster's) throughput samples, oldest first, in bounded memory: the newest
// kFullResolutionMs as they came; older ones, up to kCoarseSpanMs, downsampled to at most three
// samples per kBucketMs; older still (a window of hours), to at most three per kWideBucketMs
// (each the bucket's lowest, mean and highest of each figure, gaps kept as they are, the lowest and
// highest at the times of the bucket's lowest and highest request rate), so a spike stays visible
// however old it is. A 15-minute window at 10 Hz keeps about 2900 samples instead of 9000; a
// 24-hour one about 7200 more.
//
// Buckets are aligned to multiples of their width shifted by `phase_ms`, so series given
// different phases compact in different frames (a view that redraws what was compacted spreads
// the work).
//
// It reads like a standard container (push_back, size, operator[]...), as RingBuffer does.
//
// Thread safety: none; the owner serialises access.
class ThroughputSeries {
 public:
  static constexpr qint64 kFullResolutionMs = 3 * 60 * 1000;
  static constexpr qint64 kBucketMs = 2000;
  static constexpr qint64 kCoarseSpanMs = 15 * 60 * 1000;
  static constexpr qint64 kWideBucketMs = 60 * 1000;
  // Full resolution at up to 20 Hz; faster, the oldest are downsampled sooner.
  static constexpr size_t kMaxFineSamples = kFullResolutionMs / 50;

  // Keeps samples no older than `window_ms` before the newest.
  explicit ThroughputSeries(qint64 window_ms = 15 * 60 * 1000, qint64 phase_ms = 0);

  // REQUIRES: sample.t_ms >= back().t_ms (the owner clears the series on a seek backwards).
  void push_back(const ThroughputSample& sample);
  void clear();

  size_t size() const { return wide_.size() + coarse_.size() + fine_.size(); }
  bool empty() const { return size() == 0; }
  // i = 0 is the oldest sample. REQUIRES: i < size().
  const ThroughputSample& operator[](size_t i) const {
    if (i < wide_.size()) return wide_[i];
    i -= wide_.size();
    return i < coarse_.size() ? coarse_[i] : fine_[i - coarse_.size()];
  }
  const ThroughputSample& front() const { return (*this)[0]; }
  const ThroughputSample& back() const { return (*this)[size() - 1]; }

  // Samples older than this are downsampled ones (LLONG_MIN: none yet). It only grows until
  // clear(): a reader that drew the samples before it redraws [what it last saw, this).
  qint64 DownsampledBeforeMs() const { return downsampled_before_ms_; }
  // The same for the second downsampling (to kWideBucketMs): samples older than this changed
  // again.
  qint64 WideBeforeMs() const { return wide_before_ms_; }
  // Samples' storage allocated so far: the memory it holds now.
  size_t StoredSamples() const { return wide_.storage() + coarse_.storage() + fine_.storage(); }
  // Most samples it can hold: the memory bound.
  static size_t Capacity(qint64 window_ms);
  static size_t CoarseCapacity(qint64 window_ms);
  static size_t WideCapacity(qint64 window_ms);

 private:
  // The ring buffers' first storage, by phase (RingBuffer).
  static size_t FirstStorage(qint64 phase_ms);
  // The start of the `bucket_ms` bucket holding t_ms.
  qint64 BucketStart(qint64 t_ms, qint64 bucket_ms) const;
  // Moves the oldest `bucket_ms` bucket of `from` into `to`, downsampled; returns its end.
  qint64 DownsampleOldestBucket(RingBuffer<ThroughputSample>& from,
                                RingBuffer<ThroughputSample>& to, qint64 bucket_ms);

  qint64 window_ms_;
  qint64 phase_ms_;
  RingBuffer<ThroughputSample> wide_;
  RingBuffer<ThroughputSample> coarse_;
  RingBuffer<ThroughputSample> fine_;
  qint64 downsampled_before_ms_;
  qint64 wide_before_ms_;
};

}  // namespace railyard::ui
