// SPDX-License-Identifier: Apache-2.0
#pragma once

// A writer thread for consistency tests: it puts, overwrites and deletes keys [0, keys) through
// one rpc::Client, each document carrying a version number (one counter across all keys), and
// remembers every change it issued and the last one acknowledged per key. Reads are checked
// against that history: a read issued after a change was acknowledged must not return anything
// older.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/rpc/client.h"

namespace railyard::e2e {

// The document of version `version` of key `id`; its length is `size` bytes (at least ~40).
std::string VersionedDoc(uint64_t id, uint64_t version, size_t size = 64);

// Thread safety: Start, Stop, Pause and Resume from one controlling thread; the rest from any.
class VersionedWriter {
 public:
  struct Change {
    uint64_t version = 0;
    uint64_t position = 0;  // As the updater acknowledged it.
    bool deleted = false;
  };

  // `updater` must outlive this writer. A change is a delete with `delete_fraction` probability.
  VersionedWriter(rpc::Client& updater, uint64_t keys, double delete_fraction, uint64_t seed);
  ~VersionedWriter();
  VersionedWriter(const VersionedWriter&) = delete;
  VersionedWriter& operator=(const VersionedWriter&) = delete;

  void Start();
  // Ends the thread after its current change (at most one call's timeout).
  void Stop();
  // Returns once no change is in flight; none starts until Resume.
  void Pause();
  void Resume();

  uint64_t keys() const { return keys_; }
  uint64_t acknowledged() const { return acknowledged_.load(); }
  uint64_t failed() const { return failed_.load(); }
  // The highest position acknowledged so far.
  uint64_t max_position() const { return max_position_.load(); }
  std::optional<Change> LastAcknowledged(uint64_t id) const;

  // Empty if a read of `id` that answered `doc` (nullopt: NOT_FOUND), issued when the key's last
  // acknowledged change was `before`, is consistent with what was written; else why not.
  std::string CheckRead(uint64_t id, const std::optional<Change>& before,
                        const std::optional<std::string>& doc) const;
  // Empty if `doc` is the key's state after the writer stopped: its last change if that was
  // acknowledged; when the last one failed (its fate unknown), anything CheckRead accepts.
  std::string CheckFinal(uint64_t id, const std::optional<std::string>& doc) const;

 private:
  struct Issued {
    uint64_t version;
    bool deleted;
  };
  void Run();

  rpc::Client& updater_;
  const uint64_t keys_;
  const double delete_fraction_;
  const uint64_t seed_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> acknowledged_{0}, failed_{0}, max_position_{0};

  mutable std::mutex mu_;
  std::condition_variable paused_cv_;
  bool pause_requested_ = false;
  bool paused_ = false;
  uint64_t next_version_ = 1;
  std::map<uint64_t, std::vector<Issued>> issued_;  // By key, in order.
  std::map<uint64_t, Change> last_acknowledged_;    // By key.
  std::map<uint64_t, bool> last_failed_;            // By key: the last change issued failed.
};

// What a reader saw.
struct ReadTally {
  uint64_t reads = 0;
  uint64_t found = 0;
  uint64_t behind = 0;  // BEHIND answers: the node had not applied the position in time.
  uint64_t errors = 0;  // Failures other than NOT_FOUND and BEHIND.
  uint64_t violations = 0;
  std::vector<std::string> first_problems;  // The first few errors and violations.
  // `found` as the reader goes, for a test to watch while it runs (the fields above are the
  // reader's own until it has returned).
  std::atomic<uint64_t> found_so_far{0};
};

// Reads random keys of `writer` through `client` until `stop` (at most `max_reads`), each read
// carrying the position of the key's last acknowledged change when `with_positions`, and checks
// every answer with CheckRead.
void ReadAndCheck(rpc::Client& client, const VersionedWriter& writer, bool with_positions,
                  const std::atomic<bool>& stop, uint64_t seed, ReadTally* tally,
                  uint64_t max_reads = 1000000);

}  // namespace railyard::e2e
