#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace railyard::storage {

// The seam between the docstore and the file system (what LevelDB calls an Env): every byte the
// store writes, syncs, reads or maps goes through one. The default is plain POSIX;
// FaultInjectingEnv (fault_env.h) fails, shortens or corrupts chosen operations so that tests can
// prove what the store does then.
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
};

}  // namespace railyard::storage
