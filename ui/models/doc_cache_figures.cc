// SPDX-License-Identifier: Apache-2.0
#include "ui/models/doc_cache_figures.h"

namespace railyard::ui {

void DocCacheTracker::Update(const admin::Telemetry& telemetry) {
  if (has_previous_ && telemetry.unix_ms() == previous_ms_) return;
  const admin::DocCache& cache = telemetry.storage().cache();
  DocCacheFigures f;
  f.enabled = cache.budget_bytes() > 0;
  f.budget_bytes = cache.budget_bytes();
  f.bytes = cache.bytes();
  f.entries = cache.entries();
  f.invalidations = cache.invalidations();
  const quint64 lookups = cache.hits() + cache.misses();
  if (lookups > 0) f.hit_rate = double(cache.hits()) / double(lookups);
  if (has_previous_ && cache.hits() >= previous_hits_ && cache.misses() >= previous_misses_) {
    const quint64 hits = cache.hits() - previous_hits_;
    const quint64 interval_lookups = hits + (cache.misses() - previous_misses_);
    if (interval_lookups > 0) f.interval_hit_rate = double(hits) / double(interval_lookups);
    f.interval_ms = telemetry.unix_ms() - previous_ms_;
  }
  figures_ = f;
  has_previous_ = true;
  previous_ms_ = telemetry.unix_ms();
  previous_hits_ = cache.hits();
  previous_misses_ = cache.misses();
}

}  // namespace railyard::ui
