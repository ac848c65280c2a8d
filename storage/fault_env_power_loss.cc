// SPDX-License-Identifier: Apache-2.0
// FaultInjectingEnv's power-loss model (fault_env.h): what is durable, the cut, and the loss.
#include "storage/fault_env.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <random>

namespace railyard::storage {

void FaultInjectingEnv::TrackDurability() {
  MutexLock lock(&mu_);
  tracking_ = true;
}

void FaultInjectingEnv::CutPowerAfter(uint64_t operations) {
  MutexLock lock(&mu_);
  cut_at_ = operations_ + operations;
}

bool FaultInjectingEnv::power_cut() const {
  MutexLock lock(&mu_);
  return cut_;
}

uint64_t FaultInjectingEnv::operation_count() const {
  MutexLock lock(&mu_);
  return operations_;
}

uint64_t FaultInjectingEnv::LatestSyncStart(const std::string& path_contains) const {
  MutexLock lock(&mu_);
  uint64_t latest = 0;
  for (const auto& [path, start] : sync_starts_) {
    if (path.find(path_contains) != std::string::npos) latest = std::max(latest, start);
  }
  return latest;
}

bool FaultInjectingEnv::TickLocked() {
  ++operations_;
  if (!cut_ && operations_ >= cut_at_) {
    cut_ = true;
    for (auto& [path, file] : tracked_) {
      uint64_t size = 0;
      file.length_at_cut = Env::FileSize(path, &size) == 0 ? size : 0;
    }
  }
  return cut_;
}

FaultInjectingEnv::Tracked& FaultInjectingEnv::TrackedLocked(const std::string& path) {
  auto it = tracked_.find(path);
  if (it == tracked_.end()) {
    // On disk before tracking began (or before the last power loss): durable as it is.
    uint64_t size = 0;
    if (Env::FileSize(path, &size) != 0) size = 0;
    Tracked file{size, true};
    if (cut_) file.length_at_cut = size;
    it = tracked_.emplace(path, file).first;
  }
  return it->second;
}

bool FaultInjectingEnv::Exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string FaultInjectingEnv::DirectoryOf(const std::string& path) {
  return std::filesystem::path(path).lexically_normal().parent_path().string();
}

int FaultInjectingEnv::ReadPrefix(const std::string& path, uint64_t length, std::string* out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  out->assign(length, '\0');
  const ssize_t n = ::pread(fd, out->data(), length, 0);
  const int error = n < 0 ? errno : 0;
  ::close(fd);
  if (n >= 0) out->resize(static_cast<size_t>(n));
  return error;
}

int FaultInjectingEnv::WriteWhole(const std::string& path, const std::string& contents) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  const ssize_t n = ::write(fd, contents.data(), contents.size());
  const int error = n == static_cast<ssize_t>(contents.size()) ? 0 : (n < 0 ? errno : EIO);
  ::close(fd);
  return error;
}

int FaultInjectingEnv::LosePower(uint64_t torn_seed) {
  MutexLock lock(&mu_);
  std::mt19937_64 torn(torn_seed);
  int first_error = 0;
  const auto note = [&first_error](int rc) {
    if (first_error == 0 && rc != 0 && rc != ENOENT) first_error = rc;
  };
  // Renames the directory never made durable, newest first: the names go back to what they were.
  for (auto it = renames_.rbegin(); it != renames_.rend(); ++it) {
    if (Exists(it->to)) {
      note(Env::Rename(it->to, it->from));
      const Tracked moved = tracked_[it->to];
      tracked_[it->from] = Tracked{moved.synced, it->from_durable, moved.length_at_cut};
      tracked_.erase(it->to);
    }
    if (it->replaced) {
      note(WriteWhole(it->to, *it->replaced));
      tracked_[it->to] = Tracked{it->replaced->size(), true};
    }
  }
  for (const auto& [path, file] : tracked_) {
    uint64_t size = 0;
    if (Env::FileSize(path, &size) != 0) continue;  // Gone already.
    if (!file.entry_durable) {
      note(Env::RemoveFile(path));
    } else if (size > file.synced) {
      // Only bytes written before the power went can have reached the disk.
      const uint64_t written = std::max(file.synced, std::min(size, file.length_at_cut));
      const uint64_t kept = torn_seed == 0 ? 0 : torn() % (written - file.synced + 1);
      if (::truncate(path.c_str(), static_cast<off_t>(file.synced + kept)) != 0) note(errno);
    }
  }
  // Removed files whose directory never made the removal durable are back, as they were synced.
  for (const PendingRemoval& removal : removals_) {
    if (Exists(removal.path)) continue;
    note(WriteWhole(removal.path, removal.contents));
  }
  tracked_.clear();
  renames_.clear();
  removals_.clear();
  sync_starts_.clear();
  cut_ = false;
  cut_at_ = std::numeric_limits<uint64_t>::max();
  return first_error;
}

}  // namespace railyard::storage
