// SPDX-License-Identifier: Apache-2.0
#pragma once

// A node's flight recorder: its own telemetry snapshots (the ones the console polls), kept so
// that history is there before anyone connects. The last `full_span` at full detail, one
// snapshot per `interval`; the `downsampled_span` before that as one snapshot per `bucket`, the
// last of the bucket stripped of its per-connection lists, with the minimum, mean and maximum of
// its figures (admin.Downsampled). Both within `memory_budget_bytes`, the oldest going first.
//
// With a folder, both parts are also kept there as recordings (core/trace/recording.h:
// `full.rec`, `downsampled.rec`, replayable like any other), appended as snapshots come and
// trimmed as they go, and read back when the recorder opens: history survives a restart, with a
// gap where the node was down. A recording that cannot be read is moved aside (`*.unreadable`)
// with a warning, and the recorder starts empty: history is a help, never a reason not to start.
//
// Thread safety: every method may be called from any thread.

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "core/base/mutex.h"
#include "core/base/status.h"
#include "railyard/admin.pb.h"

namespace railyard::trace {
class RecordingWriter;
}

namespace railyard::node {

struct FlightRecorderOptions {
  bool enabled = true;
  std::chrono::milliseconds interval{1000};  // Node: how often it takes a snapshot.
  std::chrono::minutes full_span{15};
  std::chrono::hours downsampled_span{24};
  std::chrono::seconds bucket{10};
  // Both parts together, counted as serialized bytes plus a small overhead per snapshot; the
  // downsampled part may use at most a quarter of it.
  size_t memory_budget_bytes = size_t{16} << 20;
  std::string dir;  // Empty: memory only.
};

class FlightRecorder {
 public:
  static constexpr size_t kOverheadBytes = 64;  // Per snapshot held, beside its bytes.
  static constexpr size_t kDefaultPageBytes = size_t{1} << 20;
  static constexpr size_t kMaxPageBytes = size_t{4} << 20;  // Well inside a Boxcar frame.

  // Opens the folder's recordings, if any (creating the folder). Errors only for a folder that
  // cannot be made or written; unreadable recordings are set aside (see above).
  static base::Status Open(FlightRecorderOptions options, std::unique_ptr<FlightRecorder>* out);
  ~FlightRecorder();
  FlightRecorder(const FlightRecorder&) = delete;
  FlightRecorder& operator=(const FlightRecorder&) = delete;

  // Keeps `snapshot` (a snapshot older than the newest held is ignored), closing the downsampled
  // bucket it leaves behind, and drops what fell out of the spans or the budget.
  void Record(const admin::Telemetry& snapshot);

  // The snapshots taken in [from_unix_ms, to_unix_ms] (to 0: all from `from`), oldest first: the
  // downsampled ones up to where full detail begins, then the full ones; at most `max_bytes` of
  // them (0: kDefaultPageBytes; capped at kMaxPageBytes), but always at least one if any is in the
  // range. `more` and `next_from_unix_ms` say where the next page starts.
  admin::History Read(int64_t from_unix_ms, int64_t to_unix_ms, size_t max_bytes) const;

  struct Held {
    size_t full = 0;         // Snapshots.
    size_t downsampled = 0;  // Buckets.
    size_t bytes = 0;        // As counted against the budget.
    int64_t from_unix_ms = 0;
    int64_t full_from_unix_ms = 0;
  };
  Held held() const;
  // Why the folder's recordings are not written any more (a full disk, say); OK while they are.
  base::Status persistence() const;

  // The last snapshot of a bucket as the downsampled part keeps it: without slots, pool entries
  // and Bloom pages. Exposed for the tests.
  static admin::Telemetry Stripped(const admin::Telemetry& snapshot);

 private:
  struct Kept {
    int64_t unix_ms = 0;
    std::string bytes;  // admin.Telemetry.
  };
  // The bucket being filled: its figures so far and its newest snapshot.
  struct OpenBucket {
    int64_t start_ms = -1;
    int64_t from_unix_ms = 0;
    admin::Downsampled figures;
    double sums[4] = {0, 0, 0, 0};
    admin::Telemetry last;
  };

  explicit FlightRecorder(FlightRecorderOptions options);
  base::Status Load(const std::string& path, std::deque<Kept>* into);
  void CloseBucket() RAILYARD_REQUIRES(mu_);
  // Drops what fell out of the spans or the budget, in memory and (now and then) in the folder.
  void Trim(int64_t now_ms) RAILYARD_REQUIRES(mu_);
  // Appends to a recording in the folder; the first failure ends the folder's history.
  void Persist(trace::RecordingWriter* writer, const admin::Telemetry& t) RAILYARD_REQUIRES(mu_);
  void StopPersisting(const base::Status& why) RAILYARD_REQUIRES(mu_);
  Held HeldLocked() const RAILYARD_REQUIRES(mu_);

  const FlightRecorderOptions options_;
  mutable base::Mutex mu_;
  std::deque<Kept> full_ RAILYARD_GUARDED_BY(mu_);
  std::deque<Kept> downsampled_ RAILYARD_GUARDED_BY(mu_);
  size_t full_bytes_ RAILYARD_GUARDED_BY(mu_) = 0;
  size_t downsampled_bytes_ RAILYARD_GUARDED_BY(mu_) = 0;
  OpenBucket bucket_ RAILYARD_GUARDED_BY(mu_);
  std::unique_ptr<trace::RecordingWriter> full_writer_ RAILYARD_GUARDED_BY(mu_);
  std::unique_ptr<trace::RecordingWriter> downsampled_writer_ RAILYARD_GUARDED_BY(mu_);
  base::Status persistence_ RAILYARD_GUARDED_BY(mu_);
  int64_t trimmed_files_ms_ RAILYARD_GUARDED_BY(mu_) = 0;  // When the recordings were last trimmed.
};

}  // namespace railyard::node
