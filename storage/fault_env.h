#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <limits>
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
  enum class Op { kOpen, kWrite, kRead, kSync, kTruncate, kRename, kRemove, kList, kLock };

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

  int Open(const std::string& path, int flags, int* fd) override;
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
  bool Match(Op op, const std::string& path, Fault* out) EXCLUDES(mu_);

  mutable Mutex mu_;
  std::vector<Armed> faults_ GUARDED_BY(mu_);
  uint64_t space_left_ GUARDED_BY(mu_) = std::numeric_limits<uint64_t>::max();
  std::vector<Mapping> mappings_ GUARDED_BY(mu_);
  uint64_t fired_ GUARDED_BY(mu_) = 0;
};

}  // namespace railyard::storage
