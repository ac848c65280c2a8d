#include "storage/env.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "storage/options.h"

namespace railyard::storage {

Env* EnvOf(const Options& options) { return options.env ? options.env : Env::Default(); }

Env* Env::Default() {
  static Env* const env = new Env();  // Leaked on purpose: stores may outlive static destruction.
  return env;
}

int Env::Open(const std::string& path, int flags, int* fd) {
  *fd = ::open(path.c_str(), flags, 0644);
  return *fd < 0 ? errno : 0;
}

int Env::Write(const std::string& path, int fd, const char* data, size_t size, size_t* written) {
  const ssize_t n = ::write(fd, data, size);
  *written = n < 0 ? 0 : static_cast<size_t>(n);
  return n < 0 ? errno : 0;
}

int Env::ReadAt(const std::string& path, int fd, uint64_t offset, char* buffer, size_t size,
                size_t* got) {
  const ssize_t n = ::pread(fd, buffer, size, static_cast<off_t>(offset));
  *got = n < 0 ? 0 : static_cast<size_t>(n);
  return n < 0 ? errno : 0;
}

int Env::Sync(const std::string& path, int fd) { return ::fdatasync(fd) != 0 ? errno : 0; }

int Env::Truncate(const std::string& path, int fd, uint64_t size) {
  return ::ftruncate(fd, static_cast<off_t>(size)) != 0 ? errno : 0;
}

int Env::Map(const std::string& path, int fd, size_t length, const char** data) {
  void* map = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) return errno;
  ::madvise(map, length, MADV_RANDOM);  // Point lookups: read-ahead would only waste memory.
  *data = static_cast<const char*>(map);
  return 0;
}

void Env::Unmap(const char* data, size_t length) { ::munmap(const_cast<char*>(data), length); }

int Env::Rename(const std::string& from, const std::string& to) {
  return std::rename(from.c_str(), to.c_str()) != 0 ? errno : 0;
}

int Env::SyncDirectory(const std::string& directory) {
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  const int rc = ::fsync(fd) != 0 ? errno : 0;
  ::close(fd);
  return rc;
}

}  // namespace railyard::storage
