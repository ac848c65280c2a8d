// SPDX-License-Identifier: Apache-2.0
#include "ui/models/throughput_series.h"

#include <algorithm>
#include <array>
#include <climits>
#include <limits>
#include <vector>

namespace railyard::ui {

ThroughputSeries::ThroughputSeries(qint64 window_ms, qint64 phase_ms)
    : window_ms_(window_ms),
      phase_ms_(((phase_ms % kBucketMs) + kBucketMs) % kBucketMs),
      // Series of different phases (a node's, ThroughputModel) also grow in different frames:
      // at 300 nodes, all doubling at once made one frame in 1024 take 50 ms.
      wide_(WideCapacity(window_ms), FirstStorage(phase_ms_)),
      coarse_(CoarseCapacity(window_ms), FirstStorage(phase_ms_)),
      fine_(kMaxFineSamples, FirstStorage(phase_ms_)),
      downsampled_before_ms_(LLONG_MIN),
      wide_before_ms_(LLONG_MIN) {}

size_t ThroughputSeries::FirstStorage(qint64 phase_ms) {
  // 32 to 63 samples: within one octave, so no two phases ever double at the same size.
  return 32 + static_cast<size_t>(phase_ms * 32 / kBucketMs);
}

size_t ThroughputSeries::CoarseCapacity(qint64 window_ms) {
  // Three per bucket, and two more buckets for the partial ones at the ends.
  const qint64 coarse_ms =
      std::max<qint64>(0, std::min(window_ms, kCoarseSpanMs) - kFullResolutionMs);
  return 3 * size_t(coarse_ms / kBucketMs + 2);
}

size_t ThroughputSeries::WideCapacity(qint64 window_ms) {
  if (window_ms <= kCoarseSpanMs) return 0;
  return 3 * size_t((window_ms - kCoarseSpanMs) / kWideBucketMs + 2);
}

size_t ThroughputSeries::Capacity(qint64 window_ms) {
  return WideCapacity(window_ms) + CoarseCapacity(window_ms) + kMaxFineSamples;
}

qint64 ThroughputSeries::BucketStart(qint64 t_ms, qint64 bucket_ms) const {
  const qint64 shifted = t_ms - phase_ms_;
  const qint64 floor = shifted / bucket_ms - (shifted % bucket_ms < 0 ? 1 : 0);
  return floor * bucket_ms + phase_ms_;
}

void ThroughputSeries::push_back(const ThroughputSample& sample) {
  // A window of hours: whole coarse buckets that left the coarse span (or that make room) are
  // downsampled again, first, so that the coarse part has room for what follows.
  while (window_ms_ > kCoarseSpanMs && !coarse_.empty()) {
    const qint64 end = BucketStart(coarse_.front().t_ms, kWideBucketMs) + kWideBucketMs;
    if (end > sample.t_ms - kCoarseSpanMs && coarse_.size() + 6 <= coarse_.capacity()) break;
    wide_before_ms_ = DownsampleOldestBucket(coarse_, wide_, kWideBucketMs);
  }
  // Whole buckets that left the full-resolution span (or that make room) are downsampled.
  while (!fine_.empty()) {
    const qint64 end = BucketStart(fine_.front().t_ms, kBucketMs) + kBucketMs;
    if (end > sample.t_ms - kFullResolutionMs && fine_.size() < fine_.capacity()) break;
    downsampled_before_ms_ = DownsampleOldestBucket(fine_, coarse_, kBucketMs);
  }
  fine_.push_back(sample);
  const qint64 oldest = sample.t_ms - window_ms_;
  while (!wide_.empty() && wide_.front().t_ms < oldest) wide_.pop_front();
  if (wide_.empty()) {
    while (!coarse_.empty() && coarse_.front().t_ms < oldest) coarse_.pop_front();
  }
  if (wide_.empty() && coarse_.empty()) {
    while (!fine_.empty() && fine_.front().t_ms < oldest) fine_.pop_front();
  }
}

void ThroughputSeries::clear() {
  wide_.clear();
  coarse_.clear();
  fine_.clear();
  downsampled_before_ms_ = LLONG_MIN;
  wide_before_ms_ = LLONG_MIN;
}

ThroughputSample ThroughputSample::Gap(qint64 t_ms) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  return {t_ms, nan, nan, nan, nan, nan};
}

namespace {

// A bucket's samples as at most three: the lowest, mean and highest (see the class comment).
// REQUIRES: samples.size() > 3, none of them a gap.
std::array<ThroughputSample, 3> Downsample(const std::vector<ThroughputSample>& samples) {
  const size_t n = samples.size();
  ThroughputSample lo = samples[0], hi = samples[0], mean;
  size_t lo_at = 0, hi_at = 0;
  // Latency only where it was measured (traffic and a figure), as the plots draw it.
  double p50_sum = 0, p99_sum = 0;
  int measured = 0;
  bool any_latency = false;
  for (size_t i = 0; i < n; ++i) {
    const ThroughputSample& s = samples[i];
    if (s.requests_per_s < samples[lo_at].requests_per_s) lo_at = i;
    if (s.requests_per_s > samples[hi_at].requests_per_s) hi_at = i;
    lo.errors_per_s = std::min(lo.errors_per_s, s.errors_per_s);
    hi.errors_per_s = std::max(hi.errors_per_s, s.errors_per_s);
    lo.rejections_per_s = std::min(lo.rejections_per_s, s.rejections_per_s);
    hi.rejections_per_s = std::max(hi.rejections_per_s, s.rejections_per_s);
    mean.requests_per_s += s.requests_per_s;
    mean.errors_per_s += s.errors_per_s;
    mean.rejections_per_s += s.rejections_per_s;
    if (s.requests_per_s > 0 && s.p50_us > 0 && s.p99_us > 0) {
      lo.p50_us = any_latency ? std::min(lo.p50_us, s.p50_us) : s.p50_us;
      hi.p50_us = any_latency ? std::max(hi.p50_us, s.p50_us) : s.p50_us;
      lo.p99_us = any_latency ? std::min(lo.p99_us, s.p99_us) : s.p99_us;
      hi.p99_us = any_latency ? std::max(hi.p99_us, s.p99_us) : s.p99_us;
      p50_sum += s.p50_us;
      p99_sum += s.p99_us;
      ++measured;
      any_latency = true;
    }
  }
  if (!any_latency) lo.p50_us = hi.p50_us = lo.p99_us = hi.p99_us = 0;
  lo.t_ms = samples[lo_at].t_ms;
  lo.requests_per_s = samples[lo_at].requests_per_s;
  hi.t_ms = samples[hi_at].t_ms;
  hi.requests_per_s = samples[hi_at].requests_per_s;
  mean.t_ms = samples[n / 2].t_ms;
  mean.requests_per_s /= double(n);
  mean.errors_per_s /= double(n);
  mean.rejections_per_s /= double(n);
  mean.p50_us = measured > 0 ? p50_sum / measured : 0;
  mean.p99_us = measured > 0 ? p99_sum / measured : 0;
  return {lo, mean, hi};
}

}  // namespace

qint64 ThroughputSeries::DownsampleOldestBucket(RingBuffer<ThroughputSample>& from,
                                                RingBuffer<ThroughputSample>& to,
                                                qint64 bucket_ms) {
  const qint64 end = BucketStart(from.front().t_ms, bucket_ms) + bucket_ms;
  size_t n = 0;
  while (n < from.size() && from[n].t_ms < end) ++n;
  // Gaps (the node gave no data) stay gaps, at their own times: an outage older than the full
  // resolution still reads as one, not as a ramp.
  std::vector<ThroughputSample> data, kept;
  data.reserve(n);
  kept.reserve(n);
  for (size_t i = 0; i < n; ++i) (from[i].IsGap() ? kept : data).push_back(from[i]);
  if (data.size() <= 3) {
    kept.insert(kept.end(), data.begin(), data.end());
  } else {
    const std::array<ThroughputSample, 3> three = Downsample(data);
    kept.insert(kept.end(), three.begin(), three.end());
  }
  std::stable_sort(kept.begin(), kept.end(),
                   [](const auto& a, const auto& b) { return a.t_ms < b.t_ms; });
  for (const ThroughputSample& s : kept) to.push_back(s);
  for (size_t i = 0; i < n; ++i) from.pop_front();
  return end;
}

}  // namespace railyard::ui
