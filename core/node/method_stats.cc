#include "core/node/method_stats.h"

#include <algorithm>
#include <cmath>

namespace railyard::node {

using Clock = std::chrono::steady_clock;

size_t MethodStats::BucketOf(double us) {
  if (us < 1) return 0;
  const int exponent = static_cast<int>(std::floor(std::log2(us)));
  const double base = std::ldexp(1.0, exponent);
  const int sub = std::min(3, static_cast<int>((us - base) / base * 4));
  return std::min(kBuckets - 1, static_cast<size_t>(exponent * 4 + sub + 1));
}

double MethodStats::BucketUpperUs(size_t bucket) {
  if (bucket == 0) return 1;
  const size_t exponent = (bucket - 1) / 4;
  const size_t sub = (bucket - 1) % 4;
  const double base = std::ldexp(1.0, static_cast<int>(exponent));
  return base + base * static_cast<double>(sub + 1) / 4;
}

void MethodStats::Record(const std::string& method, std::chrono::nanoseconds latency, bool error) {
  const Clock::time_point now = Clock::now();
  const int64_t epoch =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()) / kWindowLength;
  const double us = std::chrono::duration<double, std::micro>(latency).count();
  all_requests_.Add(now);
  if (error) all_errors_.Add(now);
  std::lock_guard lock(mu_);
  PerMethod& m = methods_[method];
  ++m.requests;
  m.request_rate.Add(now);
  if (error) {
    ++m.errors;
    m.error_rate.Add(now);
  }
  Window& window = m.windows[static_cast<size_t>(epoch % kWindows)];
  if (window.epoch != epoch) window = Window{epoch, {}, 0};
  ++window.counts[BucketOf(us)];
  window.max_us = std::max(window.max_us, us);
}

void MethodStats::RecordRejection() { rejections_.Add(Clock::now()); }

std::vector<MethodStats::Summary> MethodStats::Summaries() const {
  const Clock::time_point now = Clock::now();
  const int64_t epoch =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()) / kWindowLength;
  std::lock_guard lock(mu_);
  std::vector<Summary> out;
  for (const auto& [name, m] : methods_) {
    Summary s;
    s.method = name;
    s.requests = m.requests;
    s.errors = m.errors;
    s.requests_per_s = m.request_rate.PerSecond(now);
    s.errors_per_s = m.error_rate.PerSecond(now);
    std::array<uint64_t, kBuckets> merged{};
    uint64_t total = 0;
    for (const Window& w : m.windows) {
      if (w.epoch < 0 || epoch - w.epoch >= kWindows) continue;
      for (size_t b = 0; b < kBuckets; ++b) merged[b] += w.counts[b];
      s.max_us = std::max(s.max_us, w.max_us);
    }
    for (uint64_t c : merged) total += c;
    auto percentile = [&](double q) {
      const uint64_t rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(total)));
      uint64_t seen = 0;
      for (size_t b = 0; b < kBuckets; ++b) {
        seen += merged[b];
        if (seen >= rank && seen > 0) return std::min(BucketUpperUs(b), s.max_us);
      }
      return 0.0;
    };
    if (total > 0) {
      s.p50_us = percentile(0.50);
      s.p90_us = percentile(0.90);
      s.p99_us = percentile(0.99);
    }
    out.push_back(std::move(s));
  }
  return out;
}

double MethodStats::requests_per_s() const { return all_requests_.PerSecond(Clock::now()); }
double MethodStats::errors_per_s() const { return all_errors_.PerSecond(Clock::now()); }
double MethodStats::rejections_per_s() const { return rejections_.PerSecond(Clock::now()); }

}  // namespace railyard::node
