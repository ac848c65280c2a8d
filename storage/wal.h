// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: the write-ahead log of the in-memory index (format in docs/formats.md).
//
// Every write is one record, appended before it is acknowledged. A record carries its document
// ids twice, in a header and in the body, each under its own checksum, so that damage to either
// half still leaves the record recoverable or at least says which documents it touched.

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/file.h"
#include "storage/index_entry.h"
#include "storage/options.h"

namespace railyard::storage {

// Set in an op's kind byte: a replica's op, whose entry arrived in a block from the updater and is
// in the segment log at its address; the record carries no document.
inline constexpr uint8_t kReplicatedFlag = 0x80;

struct WalOp {
  uint64_t id = 0;
  EntryKind kind = EntryKind::kPut;
  DocAddress address;
  std::string_view doc;
  bool replicated = false;
};

// Appends records to one log file. Not thread-safe.
//
// With the POSIX environment the log is written through a shared memory mapping of the file
// (space reserved ahead with fallocate, kMapWindowBytes at a time), not with a write(2) per
// record: profiled, that syscall was 60% of the seed's write phase. A record copied into a shared
// mapping is in the OS's page cache at once, exactly as after write(2), so it survives a crash of
// the process (SyncPolicy::kNone's promise); fsync writes mapped pages back like written ones.
// The file is cut back to its records by Finish (and the destructor); a crash leaves a tail of
// zeros after the last record, which replay recognises as unused space. Other environments (the
// fault-injecting one in tests), or a file system without fallocate, use write(2).
//
// A record of a page or more is written with pwrite(2) at its place in the window instead of
// copied in: a page written so is never mapped in, so a sync writes it back without
// write-protecting a mapping (a TLB flush on every CPU, per page) and it is not faulted in and
// zeroed first. Profiled under 4 KB puts, those were 20% of a node's CPU (docs/benchmarks.md).
class WalWriter {
 public:
  static constexpr size_t kMapWindowBytes = 8u << 20;
  // Records this long or longer are written with pwrite(2) into the window.
  static constexpr size_t kWriteThroughBytes = 4096;

  static Status Create(Env* env, const std::string& path, uint64_t number, WalWriter* out);
  WalWriter() = default;
  ~WalWriter();
  WalWriter(WalWriter&& other) noexcept;
  WalWriter& operator=(WalWriter&& other) noexcept;

  Status Append(std::span<const WalOp> ops);
  Status Sync() { return file_.Sync(); }
  // Cuts the file back to its records and makes it durable: before another log takes over, and
  // at close. No appends after it.
  Status Finish();
  uint64_t number() const { return number_; }
  uint64_t bytes() const { return bytes_; }
  bool is_open() const { return file_.is_open(); }
  bool mapped() const { return window_ != nullptr; }

 private:
  Status AppendMapped(std::string_view record);
  // pwrite(2) of all of `bytes` at file offset `at` (inside the reserved window).
  Status WriteAt(uint64_t at, std::string_view bytes);
  // Reserves and maps the window holding file offset `at`.
  Status MapWindow(uint64_t at);
  // Unmaps the window and cuts the reserved space off.
  Status Unmap();

  File file_;
  Status broken_;  // Set: appends are refused until the store is reopened.
  uint64_t number_ = 0;
  uint64_t bytes_ = 0;
  std::string buffer_;
  char* window_ = nullptr;  // Mapped mode: the window of the file at window_start_.
  uint64_t window_start_ = 0;
};

struct ReplayedOp {
  uint64_t id = 0;
  EntryKind kind = EntryKind::kPut;
  DocAddress address;
  std::string doc;
  bool replicated = false;
};

struct ReplayHandlers {
  // One intact record, in log order.
  std::function<Status(std::vector<ReplayedOp>& ops)> on_record;
  // A damaged record whose documents are known: reads of these ids must report corruption.
  std::function<void(uint64_t id)> on_damaged_id;
};

struct ReplayReport {
  uint64_t records = 0;
  uint64_t damaged_records = 0;      // Ids known, marked corrupted.
  uint64_t unidentified_damage = 0;  // Damaged stretches whose ids could not be recovered.
  uint64_t truncated_bytes =
      0;  // Torn tail removed (a mapped writer's unused reserve not counted).
};

// Replays one log file. When `last` is true, an incomplete or damaged final record is a torn tail
// from a crash mid-write (never acknowledged under kEveryWrite) and is truncated with a warning.
Status ReplayWal(const std::string& path, bool last, const Options& options,
                 const ReplayHandlers& handlers, ReplayReport* report);

}  // namespace railyard::storage
