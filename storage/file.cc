#include "storage/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace railyard::storage {

Status ErrnoStatus(const std::string& context, int error) {
  const std::string message = context + ": " + std::strerror(error);
  if (error == ENOSPC || error == EDQUOT) return Status::NoSpace(message);
  return Status::IOError(message);
}

Status File::Open(const std::string& path, Mode mode, bool create, File* out) {
  int flags = O_CLOEXEC;
  switch (mode) {
    case Mode::kRead:
      flags |= O_RDONLY;
      break;
    case Mode::kAppend:
      flags |= O_WRONLY | O_APPEND;
      break;
    case Mode::kReadWrite:
      flags |= O_RDWR;
      break;
  }
  if (create) flags |= O_CREAT;
  const int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) return ErrnoStatus("open " + path, errno);
  out->Close();
  out->fd_ = fd;
  out->path_ = path;
  return Status::Ok();
}

File::~File() { Close(); }

File::File(File&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

File& File::operator=(File&& other) noexcept {
  if (this != &other) {
    Close();
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

void File::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Status File::Append(std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd_, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("write " + path_, errno);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Status File::ReadAt(uint64_t offset, size_t size, char* buffer, size_t* got) const {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd_, buffer + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("read " + path_, errno);
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  *got = done;
  return Status::Ok();
}

Status File::Sync() {
  if (::fdatasync(fd_) != 0) return ErrnoStatus("fsync " + path_, errno);
  return Status::Ok();
}

Status File::Truncate(uint64_t size) {
  if (::ftruncate(fd_, static_cast<off_t>(size)) != 0)
    return ErrnoStatus("truncate " + path_, errno);
  return Status::Ok();
}

Status File::Size(uint64_t* size) const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return ErrnoStatus("stat " + path_, errno);
  *size = static_cast<uint64_t>(st.st_size);
  return Status::Ok();
}

Status SyncDirectory(const std::string& directory) {
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open directory " + directory, errno);
  const int rc = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (rc != 0) return ErrnoStatus("fsync directory " + directory, error);
  return Status::Ok();
}

Status WriteFileAtomically(const std::string& path, std::string_view contents) {
  const std::string temp = path + ".tmp";
  File file;
  Status s = File::Open(temp, File::Mode::kReadWrite, true, &file);
  if (s.ok()) s = file.Truncate(0);
  if (s.ok()) s = file.Append(contents);
  if (s.ok()) s = file.Sync();
  file.Close();
  if (s.ok() && ::rename(temp.c_str(), path.c_str()) != 0) s = ErrnoStatus("rename " + temp, errno);
  if (s.ok()) s = SyncDirectory(std::filesystem::path(path).parent_path().string());
  if (!s.ok()) ::unlink(temp.c_str());
  return s;
}

Status ReadWholeFile(const std::string& path, std::string* contents) {
  File file;
  Status s = File::Open(path, File::Mode::kRead, false, &file);
  uint64_t size = 0;
  if (s.ok()) s = file.Size(&size);
  if (!s.ok()) return s;
  contents->resize(size);
  size_t got = 0;
  s = file.ReadAt(0, size, contents->data(), &got);
  if (s.ok() && got != size) return Status::IOError("short read of " + path);
  return s;
}

}  // namespace railyard::storage
