// SPDX-License-Identifier: Apache-2.0
#include "storage/env.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

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

int Env::RemoveFile(const std::string& path) { return ::unlink(path.c_str()) != 0 ? errno : 0; }

int Env::ListDirectory(const std::string& directory, std::vector<std::string>* names) {
  names->clear();
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr) return errno;
  int error = 0;
  for (;;) {
    errno = 0;
    const dirent* entry = ::readdir(dir);
    if (entry == nullptr) {
      error = errno;  // 0 at the end of the directory.
      break;
    }
    if (std::strcmp(entry->d_name, ".") != 0 && std::strcmp(entry->d_name, "..") != 0) {
      names->emplace_back(entry->d_name);
    }
  }
  ::closedir(dir);
  return error;
}

int Env::CreateDirectories(const std::string& directory) {
  // Parents first: each "a/b" prefix of "a/b/c", then the whole path.
  for (size_t slash = directory.find('/', 1);; slash = directory.find('/', slash + 1)) {
    const std::string prefix = directory.substr(0, slash);
    if (!prefix.empty() && ::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) return errno;
    if (slash == std::string::npos) break;
  }
  struct stat st {};
  if (::stat(directory.c_str(), &st) != 0) return errno;
  return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
}

int Env::FileSize(const std::string& path, uint64_t* size) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return errno;
  *size = static_cast<uint64_t>(st.st_size);
  return 0;
}

int Env::LinkFile(const std::string& from, const std::string& to) {
  return ::link(from.c_str(), to.c_str()) != 0 ? errno : 0;
}

int Env::LockFile(const std::string& path, int* lock) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    ::close(fd);
    return error;
  }
  *lock = fd;
  return 0;
}

void Env::UnlockFile(const std::string& path, int lock) {
  ::flock(lock, LOCK_UN);
  ::close(lock);
}

}  // namespace railyard::storage
