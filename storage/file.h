// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: thin file wrappers over an Env that turn errno into Status with the
// file's name.

#include <cstdint>
#include <string>
#include <string_view>

#include "storage/env.h"
#include "storage/status.h"

namespace railyard::storage {

// An open file descriptor. Reads are positional and may run concurrently; appends are not
// synchronised (the owner serialises them).
class File {
 public:
  enum class Mode { kRead, kAppend, kReadWrite };

  // `env` must outlive the File.
  static Status Open(Env* env, const std::string& path, Mode mode, bool create, File* out);
  File() = default;
  ~File();
  File(File&& other) noexcept;
  File& operator=(File&& other) noexcept;
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  bool is_open() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

  // Appends all of `data`; NoSpace when the disk is full.
  Status Append(std::string_view data);
  // Reads up to `size` bytes at `offset`; `*got` says how many (fewer only at end of file).
  Status ReadAt(uint64_t offset, size_t size, char* buffer, size_t* got) const;
  Status Sync();
  Status Truncate(uint64_t size);
  Status Size(uint64_t* size) const;
  void Close();

 private:
  Env* env_ = nullptr;
  int fd_ = -1;
  std::string path_;
};

Status ErrnoStatus(const std::string& context, int error);
Status WriteFileAtomically(Env* env, const std::string& path, std::string_view contents);
Status ReadWholeFile(Env* env, const std::string& path, std::string* contents);
Status SyncDirectory(Env* env, const std::string& directory);

}  // namespace railyard::storage
