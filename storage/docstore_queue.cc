// SPDX-License-Identifier: Apache-2.0
// The DocStore's side of replication: positions, the updater's reads of its queue, a replica's
// application of fetched blocks, and sealing open blocks so replicas see lone writes promptly.

#include <algorithm>

#include "storage/docstore_impl.h"
#include "storage/log.h"

namespace railyard::storage {

using Clock = std::chrono::steady_clock;

uint64_t DocStoreImpl::AppliedPosition() {
  return options_.replica ? applied_position_.load(std::memory_order_acquire)
                          : segments_.end_position();
}

void DocStoreImpl::PublishApplied() {
  applied_position_.store(segments_.end_position(), std::memory_order_release);
  MutexLock lock(&applied_mu_);
  applied_cv_.NotifyAll();
}

bool DocStoreImpl::WaitForApplied(uint64_t position, Clock::time_point deadline) {
  // An updater has applied every write it acknowledged.
  if (!options_.replica) return true;
  MutexLock lock(&applied_mu_);
  while (applied_position_.load(std::memory_order_acquire) < position) {
    if (!applied_cv_.WaitUntil(applied_mu_, deadline)) {
      return applied_position_.load(std::memory_order_acquire) >= position;
    }
  }
  return true;
}

LogPosition DocStoreImpl::QueueEnd() { return segments_.end(); }

uint64_t DocStoreImpl::QueuePositionOf(LogPosition position) {
  return segments_.QueuePositionOf(position);
}

Status DocStoreImpl::ReadQueue(LogPosition from, size_t max_bytes, QueueChunk* chunk) {
  // Under a syncing policy a follower only gets what survives a crash of this machine, so it can
  // never hold a block the updater loses.
  if (options_.sync != SyncPolicy::kNone) {
    if (Status s = segments_.SyncTo(segments_.end()); !s.ok()) return s;
  }
  return segments_.ReadBlocks(from, max_bytes, chunk);
}

QueueLag DocStoreImpl::LagOf(LogPosition from) { return segments_.LagOf(from); }

bool DocStoreImpl::WaitForQueuePast(LogPosition from, Clock::time_point deadline) {
  return segments_.WaitForEndPast(segments_.QueuePositionOf(from), deadline);
}

Status DocStoreImpl::ApplyQueue(LogPosition at, std::string_view blocks) {
  if (!options_.replica) {
    return Status::InvalidArgument("only a replica's store applies an updater's queue");
  }
  MutexLock lock(&write_mu_);
  if (Status s = WritableLocked(); !s.ok()) return s;
  // Groups stay well inside the memtable, whose room is made once per group.
  const size_t group_limit = std::max<size_t>(1, options_.memtable_entries / 2);
  std::vector<WalOp> ops;
  std::vector<BlockEntry> entries;
  std::string scratch;
  size_t group_start = 0;
  size_t offset = 0;
  Status damage;
  while (offset < blocks.size()) {
    BlockHeader header;
    std::string_view raw;
    Status s = DecodeBlock(blocks.data() + offset, blocks.size() - offset, &scratch, &raw, &header);
    if (s.ok()) s = EntriesOfRawBlock(raw, header.tombstones, &entries);
    if (!s.ok()) {
      damage =
          Status::Corruption("fetched block at segment " + std::to_string(at.segment) + " offset " +
                             std::to_string(at.offset + offset) + ": " + s.message());
      break;
    }
    if (!ops.empty() && ops.size() + entries.size() > group_limit) {
      const LogPosition group_at{at.segment, at.offset + group_start};
      if (Status g =
              ApplyBlocksLocked(group_at, blocks.substr(group_start, offset - group_start), ops);
          !g.ok()) {
        return g;
      }
      ops.clear();
      group_start = offset;
    }
    const DocAddress block{at.segment, static_cast<uint32_t>(at.offset + offset), 0};
    for (size_t i = 0; i < entries.size(); ++i) {
      ops.push_back({entries[i].id,
                     entries[i].kind,
                     {block.segment, block.block_offset, static_cast<uint16_t>(i)},
                     {},
                     true});
    }
    offset += header.total_bytes();
  }
  if (!ops.empty()) {
    const LogPosition group_at{at.segment, at.offset + group_start};
    if (Status g =
            ApplyBlocksLocked(group_at, blocks.substr(group_start, offset - group_start), ops);
        !g.ok()) {
      return g;
    }
  }
  return damage;
}

Status DocStoreImpl::ApplyBlocksLocked(LogPosition at, std::string_view blocks,
                                       std::span<const WalOp> ops) {
  if (Status s = MakeRoom(ops.size()); !s.ok()) return s;
  // The log first: a crash before the blocks are written leaves records whose addresses hold
  // nothing, which replay drops, and the blocks are fetched again.
  if (Status s = LogOps(ops); !s.ok()) return s;
  if (Status s = segments_.AppendBlocks(at, blocks); !s.ok()) return s;
  IndexOps(ops);
  const size_t deletes = static_cast<size_t>(std::count_if(
      ops.begin(), ops.end(), [](const WalOp& op) { return op.kind == EntryKind::kDelete; }));
  appended_docs_.fetch_add(ops.size(), std::memory_order_relaxed);
  writes_.fetch_add(ops.size() - deletes, std::memory_order_relaxed);
  deletes_.fetch_add(deletes, std::memory_order_relaxed);
  PublishApplied();
  return Status::Ok();
}

void DocStoreImpl::ScheduleSeal() {
  if (options_.seal_after.count() <= 0) return;
  MutexLock lock(&seal_mu_);
  if (seal_pending_) return;
  seal_pending_ = true;
  seal_cv_.NotifyAll();
}

void DocStoreImpl::SealLoop() {
  MutexLock lock(&seal_mu_);
  while (!seal_stop_) {
    if (!seal_pending_) {
      seal_cv_.Wait(seal_mu_);
      continue;
    }
    lock.Unlock();
    const auto since = segments_.open_block_since();
    const Clock::time_point due = since ? *since + options_.seal_after : Clock::now();
    lock.Lock();
    if (seal_stop_) break;
    if (Clock::now() < due) {
      seal_cv_.WaitUntil(seal_mu_, due);
      continue;
    }
    // Consumed before looking: a block begun from here on schedules again, even one begun between
    // the seal below and this thread's return to seal_mu_ (the next writes join that block, so
    // nothing else would ever schedule it).
    seal_pending_ = false;
    lock.Unlock();
    bool still_open = false;
    {
      MutexLock write(&write_mu_);
      const auto open = segments_.open_block_since();
      if (!closed_ && open && Clock::now() >= *open + options_.seal_after) {
        if (Status s = segments_.Seal(); !s.ok()) {
          LogTo(options_, LogLevel::kError, "sealing the open block failed: " + s.ToString());
        }
      }
      still_open = !closed_ && segments_.open_block_since().has_value();
    }
    lock.Lock();
    if (still_open) {
      seal_pending_ = true;
      // Not yet due, or the seal failed: look again no sooner than a period later.
      seal_cv_.WaitUntil(seal_mu_, Clock::now() + options_.seal_after);
    }
  }
}

}  // namespace railyard::storage
