#pragma once

// Internal to storage/: the docstore queue, an append-only series of segment files made of blocks.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "storage/file.h"
#include "storage/index_entry.h"
#include "storage/mutex.h"
#include "storage/options.h"
#include "storage/segment_block.h"

namespace railyard::storage {

// A point in the log: everything before `offset` of `segment` (and all earlier segments).
struct LogPosition {
  uint32_t segment = 0;
  uint64_t offset = 0;
};

inline constexpr size_t kMaxDocumentBytes = 64u << 20;

// Documents are appended to an in-memory open block, which is written as one block when full or
// when Seal() is called; a segment file is closed and a new one begun past segment_bytes. An
// address is final the moment Append returns, even before its block is written.
//
// Thread safety: Append and Seal must be serialised by the caller; Read, Holds and the accessors
// may run concurrently with them and with each other.
class SegmentLog {
 public:
  SegmentLog(std::string directory, const Options& options);
  SegmentLog(const SegmentLog&) = delete;
  SegmentLog& operator=(const SegmentLog&) = delete;

  // Finds the segment files. Past `durable` (what the last flush made durable) a torn or damaged
  // tail is truncated with a warning, since the write-ahead log still holds those documents;
  // before it, damage is left in place and reported by Read for the documents it affects.
  Status Open(LogPosition durable) EXCLUDES(mu_);

  Status Append(uint64_t id, std::string_view doc, DocAddress* address) EXCLUDES(mu_);
  // Writes the open block, if any.
  Status Seal() EXCLUDES(mu_);
  // Makes everything written before `position` durable.
  Status SyncTo(LogPosition position) EXCLUDES(mu_);
  // The position just after the last written block.
  LogPosition end() const EXCLUDES(mu_);

  // Loads the document at `address`, which must hold `id`.
  Status Read(const DocAddress& address, uint64_t id, std::string* doc) const EXCLUDES(mu_);
  // True if a written, intact block at `address` holds `id` there.
  bool Holds(const DocAddress& address, uint64_t id) const EXCLUDES(mu_);

  uint64_t stored_bytes() const EXCLUDES(mu_);

 private:
  std::string SegmentPath(uint32_t segment) const;
  Status OpenForAppend(uint32_t segment) REQUIRES(mu_);
  Status ScanAndTruncate(uint32_t segment, uint64_t from);
  Status WriteOpenBlock() REQUIRES(mu_);
  // A read-only mapping of one segment file. The current segment is mapped with room to grow, so
  // appended blocks become readable without remapping; reads stay below its visible size.
  struct Mapping {
    Mapping() = default;
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;
    ~Mapping();
    Env* env = nullptr;
    const char* data = nullptr;
    size_t length = 0;
    std::string path;
  };
  Status Map(const std::string& path, size_t length, std::shared_ptr<Mapping>* out) const;
  Status OpenForReading(uint32_t segment, uint64_t size, size_t map_length) REQUIRES(mu_);

  const std::string directory_;
  const Options& options_;

  mutable SharedMutex mu_;
  struct Readable {
    std::shared_ptr<Mapping> mapping;
    uint64_t visible = 0;  // Bytes readers may touch (the current segment: current_size_).
  };
  std::map<uint32_t, Readable> readable_ GUARDED_BY(mu_);
  File writer_ GUARDED_BY(mu_);
  // The current segment, copied out under mu_ and fsync'ed without it.
  std::shared_ptr<File> writer_sync_ GUARDED_BY(mu_);
  uint32_t current_ GUARDED_BY(mu_) = 0;
  uint64_t current_size_ GUARDED_BY(mu_) = 0;
  uint64_t closed_bytes_ GUARDED_BY(mu_) = 0;  // Bytes in earlier segments.
  BlockBuilder open_block_ GUARDED_BY(mu_);
  Status broken_ GUARDED_BY(mu_);  // Set: writes are refused.
};

}  // namespace railyard::storage
