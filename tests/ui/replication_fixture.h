// SPDX-License-Identifier: Apache-2.0
#pragma once

// Generated replication telemetry for the console's replication tests: one updater and two
// replicas (one catching up, one tailing), whose positions, lags and cache counters are
// functions of the frame alone, so a test can recompute what any cell or plot point must show.
// Qt-free.

#include <cstdint>
#include <string>

#include "core/trace/status.h"
#include "railyard/admin.pb.h"

namespace railyard::ui::testing {

struct GeneratedReplication {
  static constexpr int kUpdater = 0;
  static constexpr int kCatchingUp = 1;  // Far behind, closing 400 documents a frame.
  static constexpr int kTailing = 2;     // 120..124 documents and 0.4 s behind.
  static constexpr int kNodes = 3;
  static constexpr char kCatchUpError[] = "fetch from 10.0.0.1:7000 timed out; retrying";

  int64_t start_unix_ms = 1'750'000'000'000;
  int frame_ms = 100;

  static std::string NodeName(int node);  // "updater", "replica-a", "replica-b".
  static std::string ServiceAddress(int node);

  static uint64_t HeadDocs(int frame) { return 100000 + 100 * uint64_t(frame); }
  static uint64_t LagDocs(int node, int frame);
  static double LagSeconds(int node, int frame);
  static double CatchUpProgress(int frame);  // The catching-up replica's.
  // Every node's document cache: 64 MiB budget; since start, hits 1000 + 900 f and misses
  // 1000 + 100 f, so each interval hits 90% while the since-start rate climbs towards it.
  static uint64_t CacheHits(int frame) { return 1000 + 900 * uint64_t(frame); }
  static uint64_t CacheMisses(int frame) { return 1000 + 100 * uint64_t(frame); }

  int64_t TimeOf(int frame) const { return start_unix_ms + int64_t(frame) * frame_ms; }
  admin::Telemetry Telemetry(int node, int frame) const;
};

// Writes `frames` frames of the three nodes into a new recording at `path` through
// trace::TelemetryRecorder, as `railyardctl record` and the console's recorder do.
trace::Status WriteReplicationRecording(const std::string& path,
                                        const GeneratedReplication& cluster, int frames);

}  // namespace railyard::ui::testing
