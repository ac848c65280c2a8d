// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "storage/env.h"
#include "storage/mutex.h"

namespace railyard::storage {

// An Env that fails, shortens or corrupts chosen operations, for tests of what the store does
// when the disk misbehaves (LevelDB's fault-injection and RocksDB's FaultInjectionTestFS play the
// same part). Everything not matched by a fault passes through to POSIX.
//
// Thread safety: all methods may be called concurrently.
class FaultInjectingEnv final : public Env {
 public:
  enum class Op { kOpen, kWrite, kRead, kSync, kTruncate, kRename, kRemove, kList, kLock, kLink };

  struct Fault {
    Op op = Op::kWrite;
    std::string path_contains;  // Empty: any file.
    uint64_t after = 0;         // Let this many matching operations through first.
    uint32_t times = 1;         // Then fire on this many (0: on every one from then on).
    int error = EIO;
    // kWrite: write this many bytes of the buffer before failing (a torn write).
    size_t partial_bytes = 0;
    // kRead: succeed, but flip one bit in the bytes returned instead of failing.
    bool corrupt = false;
  };

  void Inject(const Fault& fault);
  // Writes past `bytes` in total from now fail with ENOSPC (after writing what still fits).
  void SetSpaceLimit(uint64_t bytes);
  // Removes every fault and the space limit: the disk behaves again.
  void Heal();
  // Flips one bit at `offset` in every live mapping of a file whose path contains
  // `path_contains`, as a bad disk or a stray write would; the file itself is untouched, so the
  // store reopens cleanly. (Mappings are private copies: bytes appended later to a page that was
  // corrupted stay invisible to readers, who then report corruption, never other data.)
  int CorruptMapped(const std::string& path_contains, uint64_t offset);

  uint64_t faults_fired() const;

  // --- Power loss, as LevelDB's fault_injection_test models it. ---
  // From now on the env tracks what is durable: a file's bytes up to its last Sync, and a
  // creation, rename or removal once its directory was synced after it. Files already on disk
  // count as durable. Real fsyncs are skipped (nothing here must survive a real
  // crash). Call before opening the store.
  void TrackDurability();
  // After `operations` more mutating operations (creating opens, writes, syncs, truncates, renames,
  // removals, directory syncs) the power goes out: from that one on, nothing becomes durable any
  // more, and truncates, renames and removals are not done (but report success), so the process
  // carries on unaware, as a dying machine's would until it stops.
  void CutPowerAfter(uint64_t operations);
  bool power_cut() const;
  // Mutating operations so far: a clock for "did this sync start after that acknowledgement?".
  uint64_t operation_count() const;
  // When the latest Sync of a file whose path contains `path_contains` started (by
  // operation_count), among those that completed before the power went out; 0 if none did.
  uint64_t LatestSyncStart(const std::string& path_contains) const;
  // The power loss itself (the store must be closed): undoes renames and removals whose directory
  // was not synced since, removes files whose directory entry is not durable and cuts every other
  // file
  // back to its synced length. With a nonzero `torn_seed`, each file instead keeps a random part
  // of its unsynced bytes (chosen from the seed), as a disk that wrote some of them before the
  // power went. Then the power is back, with everything on disk durable. Returns 0 or the errno of
  // the first file operation that failed.
  int LosePower(uint64_t torn_seed = 0);

  int Open(const std::string& path, int flags, int* fd) override;
  // Faults only: a snapshot's links are outside the store, and power loss does not track them.
  int LinkFile(const std::string& from, const std::string& to) override;
  int Write(const std::string& path, int fd, const char* data, size_t size,
            size_t* written) override;
  int ReadAt(const std::string& path, int fd, uint64_t offset, char* buffer, size_t size,
             size_t* got) override;
  int Sync(const std::string& path, int fd) override;
  int Truncate(const std::string& path, int fd, uint64_t size) override;
  int Map(const std::string& path, int fd, size_t length, const char** data) override;
  void Unmap(const char* data, size_t length) override;
  int Rename(const std::string& from, const std::string& to) override;
  int RemoveFile(const std::string& path) override;
  // Matched against the directory's path.
  int ListDirectory(const std::string& directory, std::vector<std::string>* names) override;
  int LockFile(const std::string& path, int* lock) override;
  int SyncDirectory(const std::string& directory) override;

 private:
  struct Armed {
    Fault fault;
    uint64_t seen = 0;
    uint32_t fired = 0;
  };
  struct Mapping {
    std::string path;
    char* data = nullptr;
    size_t length = 0;
  };
  // The fault to apply to this operation, if any (counts it as fired).
  bool Match(Op op, const std::string& path, Fault* out) RAILYARD_EXCLUDES(mu_);

  // A file the power-loss model knows about.
  struct Tracked {
    uint64_t synced = 0;         // Bytes that survive a power loss.
    bool entry_durable = false;  // Its name survives a power loss.
    // Its length when the power went: bytes written later never reached the disk.
    uint64_t length_at_cut = std::numeric_limits<uint64_t>::max();
  };
  // A rename not yet made durable by a sync of its directory.
  struct PendingRename {
    std::string from, to;
    bool from_durable = false;            // `from`'s name was durable before the rename.
    std::optional<std::string> replaced;  // The durable contents `to` had before, if any.
  };
  // A removal not yet made durable by a sync of its directory: the file comes back.
  struct PendingRemoval {
    std::string path;
    std::string contents;  // Its durable bytes.
  };
  // Counts a mutating operation; true if the power is (now) out.
  bool TickLocked() RAILYARD_REQUIRES(mu_);
  // The record of `path`, created as durable (with its current size) if unknown.
  Tracked& TrackedLocked(const std::string& path) RAILYARD_REQUIRES(mu_);
  static bool Exists(const std::string& path);
  static std::string DirectoryOf(const std::string& path);
  // The first `length` bytes of `path` (fewer if it is shorter); 0 or an errno value.
  static int ReadPrefix(const std::string& path, uint64_t length, std::string* out);
  // Replaces `path` with `contents`; 0 or an errno value.
  static int WriteWhole(const std::string& path, const std::string& contents);

  mutable Mutex mu_;
  std::vector<Armed> faults_ RAILYARD_GUARDED_BY(mu_);
  uint64_t space_left_ RAILYARD_GUARDED_BY(mu_) = std::numeric_limits<uint64_t>::max();
  std::vector<Mapping> mappings_ RAILYARD_GUARDED_BY(mu_);
  uint64_t fired_ RAILYARD_GUARDED_BY(mu_) = 0;

  bool tracking_ RAILYARD_GUARDED_BY(mu_) = false;
  uint64_t operations_ RAILYARD_GUARDED_BY(mu_) = 0;
  uint64_t cut_at_ RAILYARD_GUARDED_BY(mu_) = std::numeric_limits<uint64_t>::max();
  bool cut_ RAILYARD_GUARDED_BY(mu_) = false;
  std::map<std::string, Tracked> tracked_ RAILYARD_GUARDED_BY(mu_);
  std::vector<PendingRename> renames_ RAILYARD_GUARDED_BY(mu_);
  std::vector<PendingRemoval> removals_ RAILYARD_GUARDED_BY(mu_);
  // Start clock of the completed syncs of each path.
  std::map<std::string, uint64_t> sync_starts_ RAILYARD_GUARDED_BY(mu_);
};

}  // namespace railyard::storage
