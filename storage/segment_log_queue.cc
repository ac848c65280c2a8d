// SPDX-License-Identifier: Apache-2.0
// The segment log's side of replication: reading whole blocks for a follower, placing a follower's
// blocks, and positions across segments (docs/formats.md, "Replication").

#include <algorithm>

#include "storage/segment_log.h"

namespace railyard::storage {

namespace {

// True unless walking the block headers from the start of a segment steps over `offset`: a
// follower asking from inside a block has diverged; one asking from a damaged block's start (or
// from beyond damage that hides the boundaries) meets damage. Only on the error path: it reads
// every header before `offset`.
bool IsBlockBoundary(const char* data, uint64_t size, uint64_t offset) {
  uint64_t at = 0;
  while (at < offset) {
    BlockHeader header;
    if (!ParseBlockHeader(data + at, static_cast<size_t>(size - at), &header).ok()) return true;
    at += header.total_bytes();
  }
  return at == offset;
}

}  // namespace

uint64_t SegmentLog::QueuePositionOf(LogPosition position) const {
  ReaderLock lock(&mu_);
  const auto it = segment_start_.find(position.segment);
  if (it == segment_start_.end()) {
    return position.segment < current_ ? 0 : closed_bytes_ + current_size_;
  }
  return it->second + position.offset;
}

Status SegmentLog::ReadBlocks(LogPosition from, size_t max_bytes, QueueChunk* chunk) const {
  std::shared_ptr<Mapping> mapping;
  uint64_t visible = 0;
  uint64_t start_position = 0;
  {
    ReaderLock lock(&mu_);
    const auto it = readable_.find(from.segment);
    const uint64_t size =
        it == readable_.end() ? 0 : (from.segment == current_ ? current_size_ : it->second.visible);
    if (it != readable_.end() && from.segment < current_ && from.offset == size) {
      from = {from.segment + 1, 0};  // A closed segment read to its end: on to the next.
    }
    const auto next = readable_.find(from.segment);
    if (next == readable_.end()) {
      return Status::InvalidArgument("this queue has no segment " + std::to_string(from.segment) +
                                     " (it ends at segment " + std::to_string(current_) + ")");
    }
    mapping = next->second.mapping;
    visible = from.segment == current_ ? current_size_ : next->second.visible;
    start_position = segment_start_.at(from.segment) + from.offset;
  }
  if (from.offset > visible) {
    return Status::InvalidArgument("offset " + std::to_string(from.offset) + " is past the end (" +
                                   std::to_string(visible) + ") of " + mapping->path);
  }
  chunk->start = from;
  chunk->blocks.clear();
  chunk->entries = 0;
  chunk->last_append_unix_us = 0;
  uint64_t offset = from.offset;
  std::string scratch;
  while (offset < visible && (chunk->blocks.empty() || chunk->blocks.size() < max_bytes)) {
    const char* block = mapping->data + offset;
    const size_t available = static_cast<size_t>(visible - offset);
    BlockHeader header;
    std::string_view raw;
    if (Status s = DecodeBlock(block, available, &scratch, &raw, &header); !s.ok()) {
      if (!chunk->blocks.empty()) break;  // Send what is good; the next fetch reports it.
      if (!IsBlockBoundary(mapping->data, visible, offset)) {
        return Status::InvalidArgument("no block begins at offset " + std::to_string(offset) +
                                       " of " + mapping->path);
      }
      return Status::Corruption(mapping->path + " block at offset " + std::to_string(offset) +
                                ": " + s.message() + "; replication cannot pass it");
    }
    if (!chunk->blocks.empty() && chunk->blocks.size() + header.total_bytes() > max_bytes) break;
    chunk->blocks.append(block, header.total_bytes());
    chunk->entries += header.count;
    offset += header.total_bytes();
  }
  ReaderLock lock(&mu_);
  const uint64_t end = start_position + chunk->blocks.size();
  const auto mark = std::lower_bound(marks_.begin(), marks_.end(), end,
                                     [](const BlockMark& m, uint64_t e) { return m.end < e; });
  if (mark != marks_.end() && mark->end == end) chunk->last_append_unix_us = mark->unix_us;
  return Status::Ok();
}

QueueLag SegmentLog::LagOf(LogPosition from) const {
  QueueLag lag;
  const uint64_t position = QueuePositionOf(from);
  ReaderLock lock(&mu_);
  lag.head = closed_bytes_ + current_size_;
  if (position >= lag.head) return lag;
  lag.bytes = lag.head - position;
  // The blocks this process wrote answer exactly, over a bounded count; the rest of the stretch
  // (older blocks, or beyond the count) is estimated at their entries per byte.
  const auto first = std::upper_bound(marks_.begin(), marks_.end(), position,
                                      [](uint64_t p, const BlockMark& m) { return p < m.end; });
  if (first == marks_.end()) return lag;
  lag.oldest_unsent_append_unix_us = first->unix_us;
  const size_t counted = std::min<size_t>(kLagBlocksCounted, marks_.end() - first);
  const BlockMark& last = *(first + static_cast<ptrdiff_t>(counted - 1));
  const uint64_t exact_entries = last.entries - first->entries + first->count;
  const uint64_t exact_bytes = last.end - first->start;
  lag.entries = exact_entries;
  const uint64_t rest = lag.bytes > exact_bytes ? lag.bytes - exact_bytes : 0;
  if (rest > 0 && exact_bytes > 0) {
    lag.entries += static_cast<uint64_t>(static_cast<double>(rest) * exact_entries / exact_bytes);
  }
  return lag;
}

Status SegmentLog::AppendBlocks(LogPosition at, std::string_view blocks) {
  bool next_segment = false;
  {
    ReaderLock lock(&mu_);
    if (!broken_.ok()) return broken_;
    if (!open_block_.empty()) {
      return Status::InvalidArgument(
          "a replica's queue has documents of its own in its open block");
    }
    next_segment = at.segment == current_ + 1 && at.offset == 0;
    if (!next_segment && (at.segment != current_ || at.offset != current_size_)) {
      return Status::InvalidArgument(
          "blocks for segment " + std::to_string(at.segment) + " offset " +
          std::to_string(at.offset) + " do not continue this queue, which ends at segment " +
          std::to_string(current_) + " offset " + std::to_string(current_size_));
    }
  }
  if (next_segment) {
    if (Status s = SyncCurrentSegment(); !s.ok()) return s;
  }
  WriterLock lock(&mu_);
  if (next_segment) {
    if (Status s = StartNextSegment(); !s.ok()) return s;
  }
  if (current_size_ + blocks.size() > UINT32_MAX) return Status::NoSpace("segment offset overflow");
  if (Status s = writer_.Append(blocks); !s.ok()) {
    if (Status cut = writer_.Truncate(current_size_); !cut.ok()) {
      broken_ = Status::IOError("segment log needs a reopen after a failed write (" + s.ToString() +
                                ") and a failed truncate (" + cut.ToString() + ")");
    }
    return s;
  }
  current_size_ += blocks.size();
  PublishEnd();
  return Status::Ok();
}

}  // namespace railyard::storage
