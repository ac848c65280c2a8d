// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: one sorted on-disk index (format in docs/formats.md).
//
// Fixed-size entries in 4 KiB pages, each page checksummed; the first id of every page is kept in
// a fence array at the end of the file so a lookup touches exactly one page (fence_lookup.h finds
// it), and within the page an interpolated guess lands next to the id (ids are spread evenly).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "storage/fence_lookup.h"
#include "storage/file.h"
#include "storage/huge_page_memory.h"
#include "storage/index_entry.h"
#include "storage/index_memory.h"
#include "storage/mutex.h"
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

// A read-only index file: memory-mapped, and once LoadIntoMemory succeeds, read from a copy of its
// pages in the process's own memory (index_memory.h says why).
//
// Thread safety: all methods may be called concurrently; lookups running while the copy is made go
// on reading the mapping, which stays until the file is destroyed. A compaction unlinks a replaced
// file's name at once; readers still holding it keep their mapping and copy.
class IndexFile {
 public:
  static Status Open(Env* env, const std::string& path, uint64_t number,
                     std::shared_ptr<IndexFile>* out);
  ~IndexFile();
  IndexFile(const IndexFile&) = delete;
  IndexFile& operator=(const IndexFile&) = delete;

  // Sets *found and, when found, *value. Corruption names the file and page. A page's checksum is
  // verified on its first lookup in each VerifiedMarks period, not on every lookup (on the copy
  // once there is one: damage that reaches the disk after the copy was read is never seen).
  Status Find(uint64_t id, bool* found, IndexValue* value) const;
  // Starts loading the line of the page a Find(id) reads first, without waiting for it, so that
  // its cache miss overlaps the caller's other misses (DocStoreImpl::Get: the memtable's slot).
  // Reads no page, only the fences; never fails; results are unaffected.
  void Prefetch(uint64_t id) const;

  // Copies the index's pages into memory taken from `budget`, which the file gives back when it is
  // destroyed, and drops the file's pages from the page cache. False, and nothing taken, if the
  // pages do not fit in what is left of the budget or the file cannot be read (lookups then go on
  // using the mapping). True at once if the copy exists already.
  bool LoadIntoMemory(const std::shared_ptr<IndexMemoryBudget>& budget) RAILYARD_EXCLUDES(load_mu_);
  bool in_memory() const { return data_.load(std::memory_order_acquire) != mapped_; }
  // What LoadIntoMemory takes from the budget: the pages, not the fence array (already in memory).
  uint64_t page_bytes() const { return page_count_ * kIndexPageBytes; }

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
  Status CheckPage(const char* data, uint64_t page, uint32_t* count) const;
  // The writer fills every page but the last (Open checks the entry count agrees).
  uint32_t EntriesIn(uint64_t page) const {
    return page + 1 < page_count_
               ? static_cast<uint32_t>(kEntriesPerPage)
               : static_cast<uint32_t>(entries_ - (page_count_ - 1) * kEntriesPerPage);
  }
  static IndexEntry DecodeEntry(const char* p);

  std::string path_;
  uint64_t number_ = 0;
  Env* env_ = nullptr;
  File file_;                     // For reading the copy.
  const char* mapped_ = nullptr;  // The mapping, kept for the file's life.
  std::atomic<const char*> data_{
      nullptr};  // What lookups read: the mapping, or the copy once it is made.
  Mutex load_mu_;
  std::unique_ptr<char[], FreeHugePageMemory> copy_
      RAILYARD_GUARDED_BY(load_mu_);  // Huge-page advised.
  std::shared_ptr<IndexMemoryBudget> budget_
      RAILYARD_GUARDED_BY(load_mu_);  // Holds page_bytes() of it.
  uint64_t size_ = 0;
  uint64_t page_count_ = 0;
  uint64_t entries_ = 0;
  std::chrono::system_clock::time_point created_;
  FenceLookup fences_;
  // Pages whose checksum a lookup verified recently (verified_marks.h); merges verify every page.
  std::unique_ptr<VerifiedMarks> verified_;
};

}  // namespace railyard::storage
