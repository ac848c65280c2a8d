// SPDX-License-Identifier: Apache-2.0
#include "storage/index_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <optional>

#include "storage/coding.h"

namespace railyard::storage {

namespace {

constexpr uint64_t kIndexMagic = 0x3158444959524cull;  // "LRYIDX1"
constexpr uint32_t kIndexVersion = 1;
constexpr size_t kFooterBytes = 48;
constexpr size_t kTrailerAt = kEntriesPerPage * kIndexEntryBytes;  // 4080

uint64_t IdAt(const char* page, uint32_t i) { return DecodeFixed64(page + i * kIndexEntryBytes); }

// Where in a page of `count` ids spread over [low, high] the id should be, by interpolation.
// REQUIRES: id > low, high > low.
uint32_t InterpolatedGuess(uint32_t count, uint64_t id, uint64_t low, uint64_t high) {
  const double share =
      std::min(1.0, static_cast<double>(id - low) / static_cast<double>(high - low));
  return static_cast<uint32_t>(share * static_cast<double>(count - 1));
}

// The first of a page's `count` ascending ids (all in [low, high]) that is >= id, or count.
//
// A binary search over a page's 204 entries touches about six cache lines far apart. Ids spread
// evenly over [low, high] put the answer within a few entries of the interpolated guess, so a short
// walk from there reads one or two adjacent lines; a page whose ids bunch up costs the walk's few
// steps and then a binary search over what is left.
uint32_t LowerBoundInPage(const char* page, uint32_t count, uint64_t id, uint64_t low,
                          uint64_t high) {
  constexpr uint32_t kWalkSteps = 8;
  uint32_t lo = 0;
  uint32_t hi = count;  // The answer is in [lo, hi].
  if (id > low && high > low) {
    const uint32_t guess = InterpolatedGuess(count, id, low, high);
    uint32_t i = guess;
    if (IdAt(page, guess) < id) {
      lo = guess + 1;  // Walk up.
      for (i = lo; i < count && i < lo + kWalkSteps && IdAt(page, i) < id; ++i) {
      }
      if (i == count || IdAt(page, i) >= id) return i;
      lo = i + 1;
    } else {
      hi = guess;  // Walk down.
      for (i = guess; i > 0 && i + kWalkSteps > guess && IdAt(page, i - 1) >= id; --i) {
      }
      if (i == 0 || IdAt(page, i - 1) < id) return i;
      hi = i - 1;
    }
  }
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (IdAt(page, mid) < id) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

void EncodeEntry(char* p, const IndexEntry& e) {
  EncodeFixed64(p, e.id);
  EncodeFixed32(p + 8, e.value.address.segment);
  EncodeFixed32(p + 12, e.value.address.block_offset);
  p[16] = static_cast<char>(e.value.address.index);
  p[17] = static_cast<char>(e.value.address.index >> 8);
  p[18] = static_cast<char>(e.value.kind);
  p[19] = 0;
}

}  // namespace

Status IndexFileWriter::Open(Env* env, const std::string& path) {
  Status s = File::Open(env, path, File::Mode::kReadWrite, true, &file_);
  if (s.ok()) s = file_.Truncate(0);
  page_.assign(kIndexPageBytes, '\0');
  return s;
}

Status IndexFileWriter::FlushPage() {
  if (in_page_ == 0) return Status::Ok();
  char* trailer = page_.data() + kTrailerAt;
  trailer[0] = static_cast<char>(in_page_);
  trailer[1] = static_cast<char>(in_page_ >> 8);
  EncodeFixed64(page_.data() + kIndexPageBytes - 8, Checksum64(page_.data(), kIndexPageBytes - 8));
  if (Status s = file_.Append(page_); !s.ok()) return s;
  bytes_ += kIndexPageBytes;
  page_.assign(kIndexPageBytes, '\0');
  in_page_ = 0;
  return Status::Ok();
}

Status IndexFileWriter::Add(const IndexEntry& entry) {
  if (in_page_ == 0) fences_.push_back(entry.id);
  EncodeEntry(page_.data() + in_page_ * kIndexEntryBytes, entry);
  ++entries_;
  if (++in_page_ == kEntriesPerPage) return FlushPage();
  return Status::Ok();
}

Status IndexFileWriter::Finish(std::chrono::system_clock::time_point created) {
  if (Status s = FlushPage(); !s.ok()) return s;
  std::string tail;
  for (uint64_t fence : fences_) PutFixed64(tail, fence);
  PutFixed64(tail, Checksum64(tail.data(), tail.size()));
  const size_t footer_at = tail.size();
  PutFixed64(tail, kIndexMagic);
  PutFixed32(tail, kIndexVersion);
  PutFixed32(tail, 0);
  PutFixed64(tail, fences_.size());
  PutFixed64(tail, entries_);
  PutFixed64(tail, static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                             created.time_since_epoch())
                                             .count()));
  PutFixed64(tail, Checksum64(tail.data() + footer_at, kFooterBytes - 8));
  Status s = file_.Append(tail);
  if (s.ok()) s = file_.Sync();
  bytes_ += tail.size();
  file_.Close();
  return s;
}

Status IndexFile::Open(Env* env, const std::string& path, uint64_t number,
                       std::shared_ptr<IndexFile>* out) {
  File file;
  if (Status s = File::Open(env, path, File::Mode::kRead, false, &file); !s.ok()) return s;
  std::shared_ptr<IndexFile> index(new IndexFile());
  index->path_ = path;
  index->number_ = number;
  if (Status s = file.Size(&index->size_); !s.ok()) return s;
  if (index->size_ < kFooterBytes + 8) return Status::Corruption(path + ": too short for an index");
  if (const int error = env->Map(path, file.fd(), index->size_, &index->mapped_); error != 0) {
    return ErrnoStatus("mmap " + path, error);
  }
  index->env_ = env;
  index->data_.store(index->mapped_, std::memory_order_release);

  const char* footer = index->mapped_ + index->size_ - kFooterBytes;
  if (DecodeFixed64(footer) != kIndexMagic ||
      Checksum64(footer, kFooterBytes - 8) != DecodeFixed64(footer + kFooterBytes - 8)) {
    return Status::Corruption(path + ": index footer damaged");
  }
  if (const uint32_t version = DecodeFixed32(footer + 8); version != kIndexVersion) {
    return Status::Corruption(path + ": index format version " + std::to_string(version) +
                              ", which this release cannot read (it reads version " +
                              std::to_string(kIndexVersion) + ")");
  }
  index->page_count_ = DecodeFixed64(footer + 16);
  index->entries_ = DecodeFixed64(footer + 24);
  index->created_ =
      std::chrono::system_clock::time_point(std::chrono::microseconds(DecodeFixed64(footer + 32)));
  const uint64_t fences_bytes = 8 * index->page_count_;
  if (index->page_count_ * kIndexPageBytes + fences_bytes + 8 + kFooterBytes != index->size_ ||
      index->entries_ > index->page_count_ * kEntriesPerPage ||
      (index->page_count_ > 0 && index->entries_ <= (index->page_count_ - 1) * kEntriesPerPage)) {
    return Status::Corruption(path + ": index layout does not match its size");
  }
  const char* fences = index->mapped_ + index->page_count_ * kIndexPageBytes;
  if (Checksum64(fences, fences_bytes) != DecodeFixed64(fences + fences_bytes)) {
    return Status::Corruption(path + ": index fence table damaged");
  }
  std::vector<uint64_t> fence_ids(index->page_count_);
  for (uint64_t i = 0; i < index->page_count_; ++i) fence_ids[i] = DecodeFixed64(fences + 8 * i);
  index->fences_ = FenceLookup(std::move(fence_ids));
  index->verified_ = std::make_unique<VerifiedMarks>(index->page_count_);
  index->file_ = std::move(file);
  *out = std::move(index);
  return Status::Ok();
}

IndexFile::~IndexFile() {
  {
    MutexLock lock(&load_mu_);
    if (budget_) budget_->Release(page_bytes());
  }
  if (mapped_) env_->Unmap(mapped_, size_);
}

bool IndexFile::LoadIntoMemory(const std::shared_ptr<IndexMemoryBudget>& budget) {
  MutexLock lock(&load_mu_);
  if (copy_) return true;
  const uint64_t bytes = page_bytes();
  if (bytes == 0 || !budget->TryReserve(bytes)) return false;
  // Huge pages: a lookup probes the copy at random (storage/huge_page_memory.h).
  std::unique_ptr<char[], FreeHugePageMemory> copy(
      static_cast<char*>(AllocateHugePageAdvised(bytes, alignof(std::max_align_t))),
      FreeHugePageMemory{bytes});
  size_t got = 0;
  if (!file_.ReadAt(0, bytes, copy.get(), &got).ok() || got != bytes) {
    budget->Release(bytes);
    return false;
  }
  copy_ = std::move(copy);
  budget_ = budget;
  data_.store(copy_.get(), std::memory_order_release);
  // The copy replaces the file's pages: leave the page cache to the segment log. Lookups that
  // still read the mapping fault their page back in. Advice only, so failures do not matter.
  ::madvise(const_cast<char*>(mapped_), bytes, MADV_DONTNEED);
  ::posix_fadvise(file_.fd(), 0, static_cast<off_t>(bytes), POSIX_FADV_DONTNEED);
  return true;
}

IndexEntry IndexFile::DecodeEntry(const char* p) {
  IndexEntry e;
  e.id = DecodeFixed64(p);
  e.value.address.segment = DecodeFixed32(p + 8);
  e.value.address.block_offset = DecodeFixed32(p + 12);
  e.value.address.index = DecodeFixed16(p + 16);
  e.value.kind = static_cast<EntryKind>(static_cast<uint8_t>(p[18]));
  return e;
}

Status IndexFile::CheckPage(const char* data, uint64_t page, uint32_t* count) const {
  const char* p = data + page * kIndexPageBytes;
  if (Checksum64(p, kIndexPageBytes - 8) != DecodeFixed64(p + kIndexPageBytes - 8)) {
    return Status::Corruption(path_ + ": page " + std::to_string(page) + " checksum mismatch");
  }
  *count = DecodeFixed16(p + kTrailerAt);
  if (*count != EntriesIn(page)) {
    return Status::Corruption(path_ + ": page " + std::to_string(page) + " entry count damaged");
  }
  return Status::Ok();
}

void IndexFile::Prefetch(uint64_t id) const {
  const std::optional<size_t> page = fences_.PageFor(id);
  if (!page) return;
  const char* base = data_.load(std::memory_order_acquire) + *page * kIndexPageBytes;
  // The last page's upper bound is its last id, itself a cache miss: its first line will do.
  uint32_t guess = 0;
  const uint64_t low = fences_.fence(*page);
  if (*page + 1 < fences_.size() && id > low) {
    guess = InterpolatedGuess(EntriesIn(*page), id, low, fences_.fence(*page + 1) - 1);
  }
  __builtin_prefetch(base + guess * kIndexEntryBytes);
}

Status IndexFile::Find(uint64_t id, bool* found, IndexValue* value) const {
  *found = false;
  const std::optional<size_t> page = fences_.PageFor(id);
  if (!page) return Status::Ok();
  uint32_t count = 0;
  const char* data = data_.load(std::memory_order_acquire);
  const char* base = data + *page * kIndexPageBytes;
  if (verified_->Verified(*page, 0)) {
    // Checked against the trailer along with the checksum; not read from it, which would cost a
    // cache miss on the page's last line for every lookup.
    count = EntriesIn(*page);
  } else {
    if (Status s = CheckPage(data, *page, &count); !s.ok()) return s;
    verified_->MarkVerified(*page, 0);
  }
  // The page's ids lie in [its fence, the next fence), or up to its own last id.
  const uint64_t low = fences_.fence(*page);
  const uint64_t high = *page + 1 < fences_.size()
                            ? fences_.fence(*page + 1) - 1
                            : DecodeFixed64(base + (count - 1) * kIndexEntryBytes);
  const uint32_t at = LowerBoundInPage(base, count, id, low, high);
  if (at < count && DecodeFixed64(base + at * kIndexEntryBytes) == id) {
    *value = DecodeEntry(base + at * kIndexEntryBytes).value;
    *found = true;
  }
  return Status::Ok();
}

Status IndexFile::Cursor::Next(IndexEntry* entry, bool* done) {
  while (true) {
    if (page_ >= file_.page_count_) {
      *done = true;
      return Status::Ok();
    }
    if (!page_loaded_) {
      const char* data = file_.data_.load(std::memory_order_acquire);
      if (Status s = file_.CheckPage(data, page_, &page_count_entries_); !s.ok()) return s;
      page_loaded_ = true;
      in_page_ = 0;
    }
    if (in_page_ < page_count_entries_) {
      const char* data = file_.data_.load(std::memory_order_acquire);
      *entry = DecodeEntry(data + page_ * kIndexPageBytes + in_page_ * kIndexEntryBytes);
      ++in_page_;
      *done = false;
      return Status::Ok();
    }
    ++page_;
    page_loaded_ = false;
  }
}

}  // namespace railyard::storage
