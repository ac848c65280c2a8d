// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace railyard::storage {

// The seam between the docstore and the file system (what LevelDB calls an Env): every byte the
// store writes, syncs, reads or maps, and every file it locks, removes or lists, goes through one.
// The default is plain POSIX; FaultInjectingEnv (fault_env.h) fails, shortens or corrupts chosen
// operations so that tests can prove what the store does then.
//
// The primitives mirror the system calls and return 0 or an errno value, so the store handles an
// injected fault exactly as it handles a real one. `path` names the file for messages and fault
// matching.
//
// Thread safety: implementations must allow concurrent calls.
class Env {
 public:
  virtual ~Env() = default;
  // The process-wide POSIX environment; never destroyed.
  static Env* Default();

  virtual int Open(const std::string& path, int flags, int* fd);
  // One write(2): may write fewer bytes than asked (`*written` says how many).
  virtual int Write(const std::string& path, int fd, const char* data, size_t size,
                    size_t* written);
  // One pread(2): `*got` may be short at end of file.
  virtual int ReadAt(const std::string& path, int fd, uint64_t offset, char* buffer, size_t size,
                     size_t* got);
  virtual int Sync(const std::string& path, int fd);
  virtual int Truncate(const std::string& path, int fd, uint64_t size);
  // A read-only view of the first `length` bytes of the file (which may still grow into it).
  virtual int Map(const std::string& path, int fd, size_t length, const char** data);
  virtual void Unmap(const char* data, size_t length);
  virtual int Rename(const std::string& from, const std::string& to);
  virtual int SyncDirectory(const std::string& directory);

  // One unlink(2): ENOENT if there was no such file.
  virtual int RemoveFile(const std::string& path);
  // The names in `directory` (not "." or ".."), in no particular order.
  virtual int ListDirectory(const std::string& directory, std::vector<std::string>* names);
  // Creates `directory` and any missing parents; 0 if it exists already.
  virtual int CreateDirectories(const std::string& directory);
  // ENOENT if nothing is at `path`.
  virtual int FileSize(const std::string& path, uint64_t* size);
  // One link(2): `to` becomes another name of `from`'s file. EXDEV across filesystems, EPERM
  // where the filesystem has no hard links.
  virtual int LinkFile(const std::string& from, const std::string& to);

  // Creates the file if missing and takes an exclusive advisory lock on it (flock(2)), held until
  // UnlockFile(`*lock`). EWOULDBLOCK if another open file description holds it: another process,
  // or another store in this one.
  virtual int LockFile(const std::string& path, int* lock);
  virtual void UnlockFile(const std::string& path, int lock);
};

}  // namespace railyard::storage
