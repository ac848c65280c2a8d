// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: one sorted on-disk index (format in docs/formats.md).
//
// Fixed-size entries in 4 KiB pages, each page checksummed; the first id of every page is kept in
// a fence array at the end of the file so a lookup touches exactly one page.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "storage/file.h"
#include "storage/index_entry.h"
#include "storage/verified_marks.h"

namespace railyard::storage {

inline constexpr size_t kIndexPageBytes = 4096;
inline constexpr size_t kIndexEntryBytes = 20;
inline constexpr size_t kEntriesPerPage = 204;  // 204 * 20 + a 16-byte trailer = 4096.

// Writes an index file in one sequential pass. Not thread-safe.
class IndexFileWriter {
 public:
  Status Open(Env* env, const std::string& path);
  // REQUIRES: ids strictly ascending across calls.
  Status Add(const IndexEntry& entry);
  // Writes the last page, the fences and the footer, and fsyncs.
  Status Finish(std::chrono::system_clock::time_point created);
  uint64_t entries() const { return entries_; }
  uint64_t bytes() const { return bytes_; }

 private:
  Status FlushPage();

  File file_;
  std::string page_;
  uint32_t in_page_ = 0;
  std::vector<uint64_t> fences_;
  uint64_t entries_ = 0;
  uint64_t bytes_ = 0;
};

// A read-only, memory-mapped index file.
//
// Thread safety: all methods may be called concurrently. A compaction unlinks a replaced file's
// name at once; readers still holding it keep their mapping.
class IndexFile {
 public:
  static Status Open(Env* env, const std::string& path, uint64_t number,
                     std::shared_ptr<IndexFile>* out);
  ~IndexFile();
  IndexFile(const IndexFile&) = delete;
  IndexFile& operator=(const IndexFile&) = delete;

  // Sets *found and, when found, *value. Corruption names the file and page. A page's checksum is
  // verified on its first lookup in each VerifiedMarks period, not on every lookup.
  Status Find(uint64_t id, bool* found, IndexValue* value) const;

  uint64_t number() const { return number_; }
  uint64_t entries() const { return entries_; }
  uint64_t bytes() const { return size_; }
  std::chrono::system_clock::time_point created() const { return created_; }
  const std::string& path() const { return path_; }

  // Sequential reader for merges: every page is verified before its entries are returned.
  class Cursor {
   public:
    explicit Cursor(const IndexFile& file) : file_(file) {}
    // Loads the next entry; *done when the file is exhausted.
    Status Next(IndexEntry* entry, bool* done);

   private:
    const IndexFile& file_;
    uint64_t page_ = 0;
    uint32_t in_page_ = 0;
    uint32_t page_count_entries_ = 0;
    bool page_loaded_ = false;
  };

 private:
  IndexFile() = default;
  Status CheckPage(uint64_t page, uint32_t* count) const;
  static IndexEntry DecodeEntry(const char* p);

  std::string path_;
  uint64_t number_ = 0;
  Env* env_ = nullptr;
  const char* data_ = nullptr;
  uint64_t size_ = 0;
  uint64_t page_count_ = 0;
  uint64_t entries_ = 0;
  std::chrono::system_clock::time_point created_;
  std::vector<uint64_t> fences_;
  // Pages whose checksum a lookup verified recently (verified_marks.h); merges verify every page.
  std::unique_ptr<VerifiedMarks> verified_;
};

}  // namespace railyard::storage
