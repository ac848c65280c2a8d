// SPDX-License-Identifier: Apache-2.0
#include "storage/fault_env.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace railyard::storage {

void FaultInjectingEnv::Inject(const Fault& fault) {
  MutexLock lock(&mu_);
  faults_.push_back({fault, 0, 0});
}

void FaultInjectingEnv::SetSpaceLimit(uint64_t bytes) {
  MutexLock lock(&mu_);
  space_left_ = bytes;
}

void FaultInjectingEnv::Heal() {
  MutexLock lock(&mu_);
  faults_.clear();
  space_left_ = std::numeric_limits<uint64_t>::max();
}

uint64_t FaultInjectingEnv::faults_fired() const {
  MutexLock lock(&mu_);
  return fired_;
}

bool FaultInjectingEnv::Match(Op op, const std::string& path, Fault* out) {
  MutexLock lock(&mu_);
  for (Armed& armed : faults_) {
    const Fault& f = armed.fault;
    if (f.op != op || path.find(f.path_contains) == std::string::npos) continue;
    if (armed.seen++ < f.after) continue;
    if (f.times != 0 && armed.fired >= f.times) continue;
    ++armed.fired;
    ++fired_;
    *out = f;
    return true;
  }
  return false;
}

int FaultInjectingEnv::Open(const std::string& path, int flags, int* fd) {
  if (Fault f; Match(Op::kOpen, path, &f)) return f.error;
  MutexLock lock(&mu_);
  if (!tracking_) {
    lock.Unlock();
    return Env::Open(path, flags, fd);
  }
  const bool creates = (flags & O_CREAT) != 0 && !Exists(path);
  if (creates) TickLocked();
  const int rc = Env::Open(path, flags, fd);
  if (rc == 0 && creates) {
    Tracked file;  // Neither bytes nor name durable yet.
    if (cut_) file.length_at_cut = 0;
    tracked_[path] = file;
  }
  if (rc == 0 && !creates) TrackedLocked(path);
  return rc;
}

int FaultInjectingEnv::Write(const std::string& path, int fd, const char* data, size_t size,
                             size_t* written) {
  *written = 0;
  {
    // Written even after the power went out: unsynced, so LosePower cuts it off again.
    MutexLock lock(&mu_);
    if (tracking_) {
      TrackedLocked(path);
      TickLocked();
    }
  }
  size_t allowed = size;
  int error = 0;
  if (Fault f; Match(Op::kWrite, path, &f)) {
    allowed = std::min(size, f.partial_bytes);
    error = f.error;
  }
  {
    MutexLock lock(&mu_);
    if (space_left_ < allowed) {
      allowed = static_cast<size_t>(space_left_);
      error = ENOSPC;
      ++fired_;
    }
    space_left_ -= allowed;
  }
  if (error == 0) return Env::Write(path, fd, data, size, written);
  // A torn write: what fits reaches the file, then the call fails as the real one would.
  while (*written < allowed) {
    size_t n = 0;
    if (const int rc = Env::Write(path, fd, data + *written, allowed - *written, &n); rc != 0)
      return rc;
    *written += n;
  }
  return error;
}

int FaultInjectingEnv::ReadAt(const std::string& path, int fd, uint64_t offset, char* buffer,
                              size_t size, size_t* got) {
  Fault f;
  const bool matched = Match(Op::kRead, path, &f);
  if (matched && !f.corrupt) return f.error;
  const int rc = Env::ReadAt(path, fd, offset, buffer, size, got);
  if (rc == 0 && matched && *got > 0) buffer[*got / 2] ^= 0x10;
  return rc;
}

int FaultInjectingEnv::Sync(const std::string& path, int fd) {
  if (Fault f; Match(Op::kSync, path, &f)) return f.error;
  MutexLock lock(&mu_);
  if (!tracking_) {
    lock.Unlock();
    return Env::Sync(path, fd);
  }
  Tracked& file = TrackedLocked(path);
  const uint64_t start = operations_ + 1;
  if (TickLocked()) return 0;
  struct stat st {};
  if (::fstat(fd, &st) != 0) return errno;
  file.synced = static_cast<uint64_t>(st.st_size);
  sync_starts_[path] = start;
  return 0;
}

int FaultInjectingEnv::Truncate(const std::string& path, int fd, uint64_t size) {
  if (Fault f; Match(Op::kTruncate, path, &f)) return f.error;
  MutexLock lock(&mu_);
  if (!tracking_) {
    lock.Unlock();
    return Env::Truncate(path, fd, size);
  }
  Tracked& file = TrackedLocked(path);
  if (TickLocked()) return 0;
  const int rc = Env::Truncate(path, fd, size);
  if (rc == 0) file.synced = std::min(file.synced, size);
  return rc;
}

int FaultInjectingEnv::LinkFile(const std::string& from, const std::string& to) {
  if (Fault f; Match(Op::kLink, from, &f)) return f.error;
  return Env::LinkFile(from, to);
}

int FaultInjectingEnv::Rename(const std::string& from, const std::string& to) {
  if (Fault f; Match(Op::kRename, from, &f)) return f.error;
  MutexLock lock(&mu_);
  if (!tracking_) {
    lock.Unlock();
    return Env::Rename(from, to);
  }
  const Tracked moved = TrackedLocked(from);
  if (TickLocked()) return 0;
  PendingRename pending{from, to, moved.entry_durable, std::nullopt};
  if (Exists(to)) {
    const Tracked& old = TrackedLocked(to);
    if (old.entry_durable) {
      std::string contents;
      if (const int rc = ReadPrefix(to, old.synced, &contents); rc != 0) return rc;
      pending.replaced = std::move(contents);
    }
  }
  if (const int rc = Env::Rename(from, to); rc != 0) return rc;
  tracked_.erase(from);
  tracked_[to] = Tracked{moved.synced, false, moved.length_at_cut};
  renames_.push_back(std::move(pending));
  return 0;
}

int FaultInjectingEnv::RemoveFile(const std::string& path) {
  if (Fault f; Match(Op::kRemove, path, &f)) return f.error;
  MutexLock lock(&mu_);
  if (!tracking_) {
    lock.Unlock();
    return Env::RemoveFile(path);
  }
  const Tracked file = TrackedLocked(path);
  if (TickLocked()) return 0;
  PendingRemoval removal{path, {}};
  if (file.entry_durable) {
    if (const int rc = ReadPrefix(path, file.synced, &removal.contents); rc != 0) return rc;
  }
  const int rc = Env::RemoveFile(path);
  if (rc != 0) return rc;
  tracked_.erase(path);
  if (file.entry_durable) removals_.push_back(std::move(removal));
  return 0;
}

int FaultInjectingEnv::ListDirectory(const std::string& directory,
                                     std::vector<std::string>* names) {
  if (Fault f; Match(Op::kList, directory, &f)) return f.error;
  return Env::ListDirectory(directory, names);
}

int FaultInjectingEnv::LockFile(const std::string& path, int* lock) {
  if (Fault f; Match(Op::kLock, path, &f)) return f.error;
  return Env::LockFile(path, lock);
}

int FaultInjectingEnv::SyncDirectory(const std::string& directory) {
  MutexLock lock(&mu_);
  if (!tracking_) {
    lock.Unlock();
    return Env::SyncDirectory(directory);
  }
  if (TickLocked()) return 0;
  const std::string dir = DirectoryOf(directory + "/x");
  for (auto& [path, file] : tracked_) {
    if (DirectoryOf(path) == dir) file.entry_durable = true;
  }
  std::erase_if(renames_, [&](const PendingRename& r) { return DirectoryOf(r.to) == dir; });
  std::erase_if(removals_, [&](const PendingRemoval& r) { return DirectoryOf(r.path) == dir; });
  return 0;
}

int FaultInjectingEnv::Map(const std::string& path, int fd, size_t length, const char** data) {
  // Private and writable, so CorruptMapped can damage this view without touching the file.
  void* map = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) return errno;
  MutexLock lock(&mu_);
  mappings_.push_back({path, static_cast<char*>(map), length});
  *data = static_cast<const char*>(map);
  return 0;
}

void FaultInjectingEnv::Unmap(const char* data, size_t length) {
  {
    MutexLock lock(&mu_);
    std::erase_if(mappings_, [data](const Mapping& m) { return m.data == data; });
  }
  ::munmap(const_cast<char*>(data), length);
}

int FaultInjectingEnv::CorruptMapped(const std::string& path_contains, uint64_t offset) {
  MutexLock lock(&mu_);
  int corrupted = 0;
  for (const Mapping& m : mappings_) {
    if (m.path.find(path_contains) == std::string::npos) continue;
    uint64_t size = 0;
    // Touching a private page past the end of the file would raise SIGBUS.
    if (Env::FileSize(m.path, &size) != 0 || offset >= size || offset >= m.length) continue;
    m.data[offset] ^= 0x10;
    ++corrupted;
  }
  fired_ += static_cast<uint64_t>(corrupted);
  return corrupted;
}

}  // namespace railyard::storage
