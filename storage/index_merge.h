// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: writing an on-disk index as the newest-wins merge of sorted sources.

#include <memory>
#include <string>
#include <vector>

#include "storage/index_file.h"
#include "storage/memtable.h"
#include "storage/options.h"

namespace railyard::storage {

// Sorted entries, one at a time.
class EntrySource {
 public:
  virtual ~EntrySource() = default;
  virtual Status Next(IndexEntry* entry, bool* done) = 0;
};

class VectorSource final : public EntrySource {
 public:
  explicit VectorSource(MemTable::SortedCopy entries) : entries_(std::move(entries)) {}
  Status Next(IndexEntry* entry, bool* done) override;

 private:
  MemTable::SortedCopy entries_;
  size_t next_ = 0;
};

class IndexFileSource final : public EntrySource {
 public:
  explicit IndexFileSource(std::shared_ptr<const IndexFile> file)
      : file_(std::move(file)), cursor_(*file_) {}
  Status Next(IndexEntry* entry, bool* done) override { return cursor_.Next(entry, done); }

 private:
  std::shared_ptr<const IndexFile> file_;
  IndexFile::Cursor cursor_;
};

struct MergeResult {
  uint64_t entries_written = 0;
  uint64_t bytes_written = 0;
  uint64_t superseded_docs = 0;  // Older copies of documents the merge dropped.
};

// Merges `sources` (newest first; for an id in several, the newest wins) into a new index file at
// `index_path` with its Bloom filter at `bloom_path`. With `drop_tombstones` (the output will be
// the oldest index) deletes vanish. `expected_entries` sizes the filter (an upper bound is fine).
Status MergeIndexes(std::vector<std::unique_ptr<EntrySource>> sources, bool drop_tombstones,
                    uint64_t expected_entries, const Options& options,
                    const std::string& index_path, const std::string& bloom_path,
                    MergeResult* result);

}  // namespace railyard::storage
