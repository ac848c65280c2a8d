// SPDX-License-Identifier: Apache-2.0
#include "storage/segment_log.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <vector>

#include "storage/filenames.h"
#include "storage/log.h"

namespace railyard::storage {

namespace fs = std::filesystem;

namespace {

// Reads a block with one pread in the common case: header plus a generous guess at its size.
constexpr size_t kFirstRead = 16 * 1024;

// Granularity of a segment's verified marks: about one block per slot at the default block size.
constexpr size_t kMarkSlotBytes = 4096;

// A block's header and per-entry overhead beyond Options::block_bytes, for the pages advised.
constexpr size_t kBlockSlack = 256;

// madvise(MADV_WILLNEED) over the pages holding [data, data + length): advice only, so a failure
// changes nothing but speed.
void AdviseWillNeed(const char* data, size_t length) {
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t start = reinterpret_cast<uintptr_t>(data) & ~(page - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(data) + length;
  ::madvise(reinterpret_cast<void*>(start), end - start, MADV_WILLNEED);
}

int64_t NowUnixMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

SegmentLog::SegmentLog(std::string directory, const Options& options)
    : directory_(std::move(directory)), options_(options) {}

std::string SegmentLog::SegmentPath(uint32_t segment) const {
  return (fs::path(directory_) / NumberedName(kSegmentPrefix, segment, kSegmentSuffix)).string();
}

SegmentLog::Mapping::~Mapping() {
  if (data) env->Unmap(data, length);
}

Status SegmentLog::Map(const std::string& path, size_t length,
                       std::shared_ptr<Mapping>* out) const {
  auto mapping = std::make_shared<Mapping>();
  mapping->path = path;
  mapping->env = EnvOf(options_);
  if (length > 0) {
    File file;
    if (Status s = File::Open(mapping->env, path, File::Mode::kRead, false, &file); !s.ok()) {
      return s;
    }
    if (const int error = mapping->env->Map(path, file.fd(), length, &mapping->data); error != 0) {
      return ErrnoStatus("mmap " + path, error);
    }
    mapping->length = length;
  }
  mapping->verified = std::make_unique<VerifiedMarks>(length / kMarkSlotBytes + 1);
  *out = std::move(mapping);
  return Status::Ok();
}

Status SegmentLog::OpenForReading(uint32_t segment, uint64_t size, size_t map_length) {
  std::shared_ptr<Mapping> mapping;
  if (Status s = Map(SegmentPath(segment), map_length, &mapping); !s.ok()) return s;
  readable_[segment] = {std::move(mapping), size};
  return Status::Ok();
}

Status SegmentLog::OpenForAppend(uint32_t segment) {
  File writer;
  Status s = File::Open(EnvOf(options_), SegmentPath(segment), File::Mode::kAppend, true, &writer);
  auto syncer = std::make_shared<File>();
  if (s.ok())
    s = File::Open(EnvOf(options_), SegmentPath(segment), File::Mode::kRead, false, syncer.get());
  uint64_t size = 0;
  if (s.ok()) s = writer.Size(&size);
  // Room for the segment to fill, plus one last block that may carry the largest document.
  const size_t reserve =
      options_.segment_bytes + kMaxDocumentBytes + 2 * options_.block_bytes + 4096;
  if (s.ok()) s = OpenForReading(segment, size, std::max<size_t>(reserve, size));
  if (!s.ok()) return s;
  writer_ = std::move(writer);
  writer_sync_ = std::move(syncer);
  current_ = segment;
  current_size_ = size;
  return Status::Ok();
}

Status SegmentLog::Open(LogPosition durable) {
  WriterLock lock(&mu_);
  std::vector<uint64_t> numbers;
  if (Status s =
          ListNumbered(EnvOf(options_), directory_, kSegmentPrefix, kSegmentSuffix, &numbers);
      !s.ok()) {
    return s;
  }
  std::vector<uint32_t> segments;
  for (uint64_t number : numbers) {
    if (number > UINT32_MAX) return Status::Corruption("segment number out of range");
    segments.push_back(static_cast<uint32_t>(number));
  }

  for (uint32_t segment : segments) {
    if (segment < durable.segment) continue;
    const uint64_t from = segment == durable.segment ? durable.offset : 0;
    if (Status s = ScanAndTruncate(segment, from); !s.ok()) return s;
  }
  closed_bytes_ = 0;
  segment_start_.clear();
  for (uint32_t segment : segments) {
    if (segment == segments.back()) break;
    uint64_t size = 0;
    if (const int error = EnvOf(options_)->FileSize(SegmentPath(segment), &size); error != 0) {
      return ErrnoStatus("stat " + SegmentPath(segment), error);
    }
    if (Status s = OpenForReading(segment, size, size); !s.ok()) return s;
    segment_start_[segment] = closed_bytes_;
    closed_bytes_ += size;
  }
  const uint32_t last = segments.empty() ? std::max<uint32_t>(1, durable.segment) : segments.back();
  segment_start_[last] = closed_bytes_;
  if (Status s = OpenForAppend(last); !s.ok()) return s;
  PublishEnd();
  return Status::Ok();
}

Status SegmentLog::ScanAndTruncate(uint32_t segment, uint64_t from) {
  File file;
  if (Status s =
          File::Open(EnvOf(options_), SegmentPath(segment), File::Mode::kReadWrite, false, &file);
      !s.ok()) {
    return s;
  }
  uint64_t size = 0;
  if (Status s = file.Size(&size); !s.ok()) return s;
  if (size < from) {
    LogTo(options_, LogLevel::kError,
          file.path() + " is shorter (" + std::to_string(size) +
              " bytes) than its durable length (" + std::to_string(from) +
              "); documents past its end cannot be read");
    return Status::Ok();
  }
  uint64_t offset = from;
  std::string buffer;
  std::string scratch;
  std::string_view raw;
  while (offset < size) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(kFirstRead, size - offset));
    buffer.resize(want);
    size_t got = 0;
    if (Status s = file.ReadAt(offset, want, buffer.data(), &got); !s.ok()) return s;
    BlockHeader header;
    bool intact =
        ParseBlockHeader(buffer.data(), got, &header).ok() && offset + header.total_bytes() <= size;
    if (intact) {
      if (header.total_bytes() > got) {
        buffer.resize(header.total_bytes());
        if (Status s = file.ReadAt(offset, buffer.size(), buffer.data(), &got); !s.ok()) return s;
      }
      intact = DecodeBlock(buffer.data(), got, &scratch, &raw).ok();
    }
    if (!intact) break;
    offset += header.total_bytes();
  }
  if (offset < size) {
    LogTo(options_, LogLevel::kWarning,
          "truncating torn tail of " + file.path() + ": " + std::to_string(size - offset) +
              " bytes after offset " + std::to_string(offset) +
              " (the write-ahead log still holds those documents)");
    if (Status s = file.Truncate(offset); !s.ok()) return s;
    if (Status s = file.Sync(); !s.ok()) return s;
  }
  return Status::Ok();
}

Status SegmentLog::WriteOpenBlock() {
  if (open_block_.empty()) return Status::Ok();
  const std::string bytes = open_block_.Encode();
  const uint64_t count = open_block_.count();
  if (Status s = writer_.Append(bytes); !s.ok()) {
    // Make the file end where it did, so the block lands at the offset its documents' addresses
    // say when it is written again; until then they are read from the open block.
    if (Status cut = writer_.Truncate(current_size_); !cut.ok()) {
      // The file's end is unknown now, so no later block could be placed where its addresses
      // say: refuse writes until the store is reopened (recovery finds the real end).
      broken_ = Status::IOError("segment log needs a reopen after a failed write (" + s.ToString() +
                                ") and a failed truncate (" + cut.ToString() + ")");
    }
    return s;
  }
  open_block_.Reset();
  const uint64_t start = closed_bytes_ + current_size_;
  current_size_ += bytes.size();
  entries_written_ += count;
  // Freshness counts from the block's first write, not from when it was sealed.
  const int64_t open_for_us = std::chrono::duration_cast<std::chrono::microseconds>(
                                  std::chrono::steady_clock::now() - open_since_)
                                  .count();
  marks_.push_back(
      {start, start + bytes.size(), count, entries_written_, NowUnixMicros() - open_for_us});
  if (marks_.size() > kMaxMarks) marks_.pop_front();
  PublishEnd();
  return Status::Ok();
}

void SegmentLog::PublishEnd() {
  end_position_.store(closed_bytes_ + current_size_, std::memory_order_release);
  MutexLock lock(&end_mu_);
  end_cv_.NotifyAll();
}

bool SegmentLog::WaitForEndPast(uint64_t queue_position,
                                std::chrono::steady_clock::time_point deadline) {
  MutexLock lock(&end_mu_);
  while (end_position() <= queue_position) {
    if (!end_cv_.WaitUntil(end_mu_, deadline)) return end_position() > queue_position;
  }
  return true;
}

Status SegmentLog::StartNextSegment() {
  closed_bytes_ += current_size_;
  readable_[current_].visible = current_size_;
  segment_start_[current_ + 1] = closed_bytes_;
  return OpenForAppend(current_ + 1);
}

Status SegmentLog::Append(uint64_t id, EntryKind kind, std::string_view doc, DocAddress* address,
                          bool may_start_block, bool may_sync) {
  if (doc.size() > kMaxDocumentBytes) {
    return Status::InvalidArgument("document of " + std::to_string(doc.size()) +
                                   " bytes exceeds the limit of " +
                                   std::to_string(kMaxDocumentBytes));
  }
  {
    WriterLock lock(&mu_);
    if (!broken_.ok()) return broken_;
    const bool full = open_block_.count() >= 65535;
    const bool would_overflow =
        !open_block_.empty() &&
        (full ||
         (may_start_block && open_block_.raw_bytes() + doc.size() + 13 > options_.block_bytes));
    if (would_overflow) {
      if (Status s = WriteOpenBlock(); !s.ok()) return s;
    }
    if (!open_block_.empty() || !may_start_block || current_size_ < options_.segment_bytes) {
      return AddToOpenBlock(id, kind, doc, address);
    }
  }
  if (!may_sync) return Status::WouldWait("the segment is full: closing it syncs it");
  if (Status s = SyncCurrentSegment(); !s.ok()) return s;
  WriterLock lock(&mu_);
  if (Status s = StartNextSegment(); !s.ok()) return s;
  return AddToOpenBlock(id, kind, doc, address);
}

Status SegmentLog::SyncCurrentSegment() {
  // The segment is made durable before the next begins, so that only the newest can have a torn
  // tail. Without mu_: reads go on during the sync (seconds on a busy disk), and the caller's
  // serialisation of Append, Seal and AppendBlocks keeps writes to this segment out of it.
  return SyncTo(end());
}

Status SegmentLog::AddToOpenBlock(uint64_t id, EntryKind kind, std::string_view doc,
                                  DocAddress* address) {
  if (current_size_ > UINT32_MAX) return Status::NoSpace("segment offset overflow");
  if (open_block_.empty()) open_since_ = std::chrono::steady_clock::now();
  address->segment = current_;
  address->block_offset = static_cast<uint32_t>(current_size_);
  address->index = static_cast<uint16_t>(open_block_.count());
  open_block_.Add(id, kind, kind == EntryKind::kDelete ? std::string_view() : doc);
  return Status::Ok();
}

std::optional<std::chrono::steady_clock::time_point> SegmentLog::open_block_since() const {
  ReaderLock lock(&mu_);
  if (open_block_.empty()) return std::nullopt;
  return open_since_;
}

Status SegmentLog::Seal() {
  WriterLock lock(&mu_);
  return WriteOpenBlock();
}

Status SegmentLog::SyncTo(LogPosition position) {
  std::shared_ptr<File> file;
  LogPosition end;
  {
    ReaderLock lock(&mu_);
    // Segments before the current one were synced when they were closed.
    if (position.segment != current_) return Status::Ok();
    file = writer_sync_;
    end = {current_, current_size_};
  }
  {
    MutexLock lock(&synced_mu_);
    if (synced_.segment == end.segment && synced_.offset >= std::min(position.offset, end.offset)) {
      return Status::Ok();  // Nothing written there since the last sync.
    }
  }
  if (Status s = file->Sync(); !s.ok()) return s;
  MutexLock lock(&synced_mu_);
  // The bytes up to `end` were written before the sync began.
  if (synced_.segment < end.segment ||
      (synced_.segment == end.segment && synced_.offset < end.offset)) {
    synced_ = end;
  }
  return Status::Ok();
}

LogPosition SegmentLog::end() const {
  ReaderLock lock(&mu_);
  return {current_, current_size_};
}

Status SegmentLog::Read(const DocAddress& address, uint64_t id, std::string* doc) const {
  EntryKind kind = EntryKind::kPut;
  if (Status s = ReadEntry(address, id, doc, &kind); !s.ok()) return s;
  if (kind != EntryKind::kPut) {
    return Status::Corruption("segment " + std::to_string(address.segment) + " block at offset " +
                              std::to_string(address.block_offset) + " holds a deletion of " +
                              std::to_string(id) + " where the index expects a document");
  }
  return Status::Ok();
}

Status SegmentLog::ReadEntry(const DocAddress& address, uint64_t id, std::string* doc,
                             EntryKind* kind) const {
  std::shared_ptr<Mapping> mapping;
  uint64_t visible = 0;
  {
    ReaderLock lock(&mu_);
    if (address.segment == current_ && address.block_offset == current_size_) {
      if (open_block_.Get(address.index, id, doc, kind)) return Status::Ok();
      return Status::Corruption("open block does not hold document " + std::to_string(id));
    }
    const auto it = readable_.find(address.segment);
    if (it == readable_.end()) {
      return Status::Corruption("segment " + std::to_string(address.segment) + " is missing");
    }
    mapping = it->second.mapping;
    visible = address.segment == current_ ? current_size_ : it->second.visible;
    // The block's header and, in an uncompressed block, its offset-table line for the entry do
    // not depend on each other: started here, their misses overlap each other and this lock's
    // release (docstore_impl.cc's Get says why that matters). Never faults, changes nothing.
    if (address.block_offset < visible) {
      const char* block = mapping->data + address.block_offset;
      __builtin_prefetch(block);
      __builtin_prefetch(block + kBlockHeaderBytes + 4 * (1 + size_t{address.index}));
    }
  }
  auto corrupt = [&](const std::string& what) {
    return Status::Corruption(mapping->path + " block at offset " +
                              std::to_string(address.block_offset) + ": " + what);
  };
  if (address.block_offset >= visible) return corrupt("beyond the end of the segment");
  const char* block = mapping->data + address.block_offset;
  const size_t available = static_cast<size_t>(visible - address.block_offset);
  thread_local std::string scratch;
  std::string_view raw;
  BlockHeader header;
  const size_t mark_slot = address.block_offset / kMarkSlotBytes;
  const bool verified = mapping->verified->Verified(mark_slot, address.block_offset);
  if (prefetch_.ShouldAdvise()) {
    AdviseWillNeed(block, std::min(available, options_.block_bytes + kBlockSlack));
    advised_reads_.fetch_add(1, std::memory_order_relaxed);
  }
  const bool timed = BlockPrefetchPolicy::ShouldTime();
  const auto touch_start =
      timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  if (Status s = DecodeBlock(block, available, &scratch, &raw, &header, !verified); !s.ok()) {
    return corrupt(s.message());
  }
  BlockEntry entry;
  if (Status s = EntryFromRawBlock(raw, header.tombstones, address.index, id, &entry); !s.ok()) {
    return corrupt(s.message());
  }
  if (timed) prefetch_.Observe(std::chrono::steady_clock::now() - touch_start);
  // Marked only once the entry was found whole: a damaged block is verified (and fails) every time.
  if (!verified) mapping->verified->MarkVerified(mark_slot, address.block_offset);
  doc->assign(entry.doc);
  *kind = entry.kind;
  return Status::Ok();
}

bool SegmentLog::Holds(const DocAddress& address, uint64_t id, EntryKind kind) const {
  {
    ReaderLock lock(&mu_);
    if (address.segment > current_ ||
        (address.segment == current_ && address.block_offset >= current_size_)) {
      return false;
    }
  }
  std::string doc;
  EntryKind found = EntryKind::kPut;
  return ReadEntry(address, id, &doc, &found).ok() && found == kind;
}

uint64_t SegmentLog::stored_bytes() const {
  ReaderLock lock(&mu_);
  return closed_bytes_ + current_size_;
}

}  // namespace railyard::storage
