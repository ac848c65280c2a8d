// SPDX-License-Identifier: Apache-2.0
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

Status File::Open(Env* env, const std::string& path, Mode mode, bool create, File* out) {
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
  int fd = -1;
  if (const int error = env->Open(path, flags, &fd); error != 0) {
    return ErrnoStatus("open " + path, error);
  }
  out->Close();
  out->env_ = env;
  out->fd_ = fd;
  out->path_ = path;
  return Status::Ok();
}

File::~File() { Close(); }

File::File(File&& other) noexcept
    : env_(other.env_), fd_(other.fd_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

File& File::operator=(File&& other) noexcept {
  if (this != &other) {
    Close();
    env_ = other.env_;
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
    size_t n = 0;
    const int error = env_->Write(path_, fd_, data.data(), data.size(), &n);
    if (error == EINTR) continue;
    if (error != 0) return ErrnoStatus("write " + path_, error);
    data.remove_prefix(n);
  }
  return Status::Ok();
}

Status File::ReadAt(uint64_t offset, size_t size, char* buffer, size_t* got) const {
  size_t done = 0;
  while (done < size) {
    size_t n = 0;
    const int error = env_->ReadAt(path_, fd_, offset + done, buffer + done, size - done, &n);
    if (error == EINTR) continue;
    if (error != 0) return ErrnoStatus("read " + path_, error);
    if (n == 0) break;
    done += n;
  }
  *got = done;
  return Status::Ok();
}

Status File::Sync() {
  if (const int error = env_->Sync(path_, fd_); error != 0)
    return ErrnoStatus("fsync " + path_, error);
  return Status::Ok();
}

Status File::Truncate(uint64_t size) {
  if (const int error = env_->Truncate(path_, fd_, size); error != 0) {
    return ErrnoStatus("truncate " + path_, error);
  }
  return Status::Ok();
}

Status File::Size(uint64_t* size) const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return ErrnoStatus("stat " + path_, errno);
  *size = static_cast<uint64_t>(st.st_size);
  return Status::Ok();
}

Status SyncDirectory(Env* env, const std::string& directory) {
  if (const int error = env->SyncDirectory(directory); error != 0) {
    return ErrnoStatus("fsync directory " + directory, error);
  }
  return Status::Ok();
}

Status WriteFileAtomically(Env* env, const std::string& path, std::string_view contents) {
  const std::string temp = path + ".tmp";
  File file;
  Status s = File::Open(env, temp, File::Mode::kReadWrite, true, &file);
  if (s.ok()) s = file.Truncate(0);
  if (s.ok()) s = file.Append(contents);
  if (s.ok()) s = file.Sync();
  file.Close();
  if (s.ok()) {
    if (const int error = env->Rename(temp, path); error != 0)
      s = ErrnoStatus("rename " + temp, error);
  }
  if (s.ok()) s = SyncDirectory(env, std::filesystem::path(path).parent_path().string());
  if (!s.ok()) env->RemoveFile(temp);  // Best effort: the error that matters is `s`.
  return s;
}

Status ReadWholeFile(Env* env, const std::string& path, std::string* contents) {
  File file;
  Status s = File::Open(env, path, File::Mode::kRead, false, &file);
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
