// SPDX-License-Identifier: Apache-2.0
#pragma once

// kv_bench's memory limit: a memory cgroup around one engine's child process, as the docstore
// seed limited each engine to 512 MB. Page cache counts against the limit as well as the heap, so
// an engine that leans on the OS's cache is limited too.
//
// The cgroup is made under this process's own memory cgroup, so the limit nests inside whatever
// limit this process already runs under and never escapes it. cgroup v1's memory controller
// (memory.limit_in_bytes) is used where it is mounted, else cgroup v2 (memory.max).
//
// Thread safety: none; one object per child.

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace railyard::bench {

// kv_bench's exit status when --memory-limit-mb was asked for but no memory cgroup could be made.
inline constexpr int kNoMemoryCgroupExit = 3;

class MemoryCgroup {
 public:
  MemoryCgroup() = default;
  MemoryCgroup(const MemoryCgroup&) = delete;
  MemoryCgroup& operator=(const MemoryCgroup&) = delete;
  // Removes the cgroup (its processes must have ended).
  ~MemoryCgroup();

  // Makes a cgroup named `name` limited to `limit_bytes`. False with *error saying what was tried
  // (both versions) and why it failed.
  bool Create(const std::string& name, uint64_t limit_bytes, std::string* error);

  // The file a process writes its pid into to join (JoinMemoryCgroup).
  const std::string& procs_path() const { return procs_path_; }
  // After the child ended: the most memory charged at once, and how many processes the kernel
  // killed for want of memory (0 where the kernel does not say).
  uint64_t PeakBytes() const;
  uint64_t OomKills() const;

 private:
  std::string directory_;
  std::string procs_path_;
  bool v2_ = false;
};

// Moves the calling process into the cgroup whose cgroup.procs is `procs_path`; everything it
// allocates from then on counts against the limit. False with *error.
bool JoinMemoryCgroup(const std::string& procs_path, std::string* error);
// The same for another process (service_bench's railyard-node): what it allocates from then on.
bool MoveIntoMemoryCgroup(const std::string& procs_path, pid_t pid, std::string* error);

}  // namespace railyard::bench
