// SPDX-License-Identifier: Apache-2.0
#include "storage/docstore_impl.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <thread>

#include "storage/compaction_rule.h"
#include "storage/filenames.h"
#include "storage/index_merge.h"
#include "storage/log.h"

namespace railyard::storage {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {
constexpr size_t kHistoryLimit = 100;
}  // namespace

Status DocStore::Open(const Options& options, const std::string& directory,
                      std::unique_ptr<DocStore>* store) {
  if (options.memtable_entries == 0) return Status::InvalidArgument("memtable_entries must be > 0");
  if (options.bloom_false_positive_rate <= 0 || options.bloom_false_positive_rate >= 1) {
    return Status::InvalidArgument("bloom_false_positive_rate must be in (0, 1)");
  }
  auto impl = std::make_unique<DocStoreImpl>(options, directory);
  if (Status s = impl->Init(); !s.ok()) return s;
  *store = std::move(impl);
  return Status::Ok();
}

DocStoreImpl::DocStoreImpl(const Options& options, std::string directory)
    : options_(options),
      env_(EnvOf(options_)),
      directory_(std::move(directory)),
      segments_(directory_, options_),
      pager_(options_),
      index_memory_(std::make_shared<IndexMemoryBudget>(options_.index_memory_budget)),
      cache_(options_.doc_cache_bytes) {}

DocStoreImpl::~DocStoreImpl() { Close(); }

std::string DocStoreImpl::PathFor(const char* prefix, uint64_t number, const char* suffix) const {
  return (fs::path(directory_) / NumberedName(prefix, number, suffix)).string();
}

void DocStoreImpl::DeleteFile(const std::string& path) {
  // An obsolete file left behind costs only space: the manifest no longer names it.
  if (const int error = env_->RemoveFile(path); error != 0 && error != ENOENT) {
    LogTo(options_, LogLevel::kWarning, "could not delete " + path + ": " + std::strerror(error));
  }
}

Status DocStoreImpl::OpenDirectory() {
  uint64_t ignored = 0;
  if (const int error = env_->FileSize(directory_, &ignored); error == ENOENT) {
    if (!options_.create_if_missing) return Status::InvalidArgument(directory_ + " does not exist");
    if (const int created = env_->CreateDirectories(directory_); created != 0) {
      return ErrnoStatus("create " + directory_, created);
    }
  } else if (error != 0) {
    return ErrnoStatus("stat " + directory_, error);
  }
  lock_path_ = (fs::path(directory_) / kLockName).string();
  if (const int error = env_->LockFile(lock_path_, &lock_); error != 0) {
    const Status reason = ErrnoStatus("lock " + lock_path_, error);
    if (error != EWOULDBLOCK) return reason;
    return Status::Busy("the store in " + directory_ + " is already open in another process (" +
                        reason.message() + ")");
  }
  return Status::Ok();
}

Status DocStoreImpl::OpenIndex(uint64_t number, std::shared_ptr<DiskIndex>* out) {
  auto index = std::make_shared<DiskIndex>();
  if (Status s =
          IndexFile::Open(env_, PathFor(kIndexPrefix, number, kIndexSuffix), number, &index->file);
      !s.ok()) {
    return s;
  }
  std::shared_ptr<BloomFile> bloom;
  if (Status s = BloomFile::Open(env_, PathFor(kIndexPrefix, number, kBloomSuffix), &bloom);
      !s.ok()) {
    return s;
  }
  index->filter = std::make_shared<PagedFilter>(number, std::move(bloom),
                                                options_.bloom_min_lookups_for_measured_rate);
  *out = std::move(index);
  return Status::Ok();
}

Status DocStoreImpl::Init() {
  if (Status s = OpenDirectory(); !s.ok()) return s;
  const std::string manifest_path = (fs::path(directory_) / kManifestName).string();
  {
    MutexLock change(&change_mu_);
    if (Status s = ReadManifest(manifest_path); !s.ok()) return s;
    if (Status s = LoadState(); !s.ok()) return s;
  }
  if (Status s = Replay(); !s.ok()) return s;
  uint64_t wal_number = 0;
  {
    MutexLock lock(&write_mu_);
    if (Status s = StartWal(); !s.ok()) return s;
    wal_number = wal_.number();
  }
  {
    // Everything replayed is in an on-disk index now: the old logs can go.
    MutexLock change(&change_mu_);
    manifest_.wal_start = wal_number;
    manifest_.next_file = next_file_;
    if (Status s = WriteFileAtomically(env_, manifest_path, EncodeManifest(manifest_)); !s.ok())
      return s;
  }
  RemoveOldWals(wal_number);
  LoadIndexesIntoMemory();

  PublishApplied();
  pager_.Start();
  bg_thread_ = std::thread([this] { BackgroundLoop(); });
  if (options_.seal_after.count() > 0) seal_thread_ = std::thread([this] { SealLoop(); });
  if (options_.sync == SyncPolicy::kInterval) sync_thread_ = std::thread([this] { SyncLoop(); });
  return Status::Ok();
}

Status DocStoreImpl::LoadState() {
  uint64_t next = manifest_.next_file;
  for (const auto& [prefix, suffix] :
       {std::pair{kWalPrefix, kWalSuffix}, std::pair{kIndexPrefix, kIndexSuffix},
        std::pair{kIndexPrefix, kBloomSuffix}}) {
    std::vector<uint64_t> numbers;
    if (Status s = ListNumbered(env_, directory_, prefix, suffix, &numbers); !s.ok()) return s;
    for (uint64_t n : numbers) next = std::max(next, n + 1);
  }
  next_file_ = next;
  appended_docs_ = manifest_.appended_docs;
  dead_docs_ = manifest_.dead_docs;

  if (Status s = segments_.Open(manifest_.durable); !s.ok()) return s;
  auto set = std::make_shared<IndexSet>();
  for (const ManifestIndex& entry : manifest_.indexes) {
    std::shared_ptr<DiskIndex> index;
    if (Status s = OpenIndex(entry.number, &index); !s.ok()) return s;
    set->indexes.push_back(index);
    pager_.Add(index->filter);
  }
  UpdateSizeRule(*set);
  {
    WriterLock mem(&mem_mu_);
    mem_ = std::make_unique<MemTable>(MemTableCapacity());
  }
  MutexLock lock(&set_mu_);
  set_ = std::move(set);
  return Status::Ok();
}

Status DocStoreImpl::ReadManifest(const std::string& path) {
  uint64_t size = 0;
  if (const int error = env_->FileSize(path, &size); error == ENOENT) {
    return Status::Ok();  // A new store.
  } else if (error != 0) {
    return ErrnoStatus("stat " + path, error);
  }
  if (options_.error_if_exists)
    return Status::InvalidArgument(directory_ + " already holds a store");
  std::string text;
  if (Status s = ReadWholeFile(env_, path, &text); !s.ok()) return s;
  if (Status s = DecodeManifest(text, &manifest_); !s.ok()) {
    return Status::Corruption(path + ": " + s.message());
  }
  return Status::Ok();
}

// --- Recovery -----------------------------------------------------------------------------------

Status DocStoreImpl::Replay() {
  std::vector<uint64_t> logs;
  if (Status s = ListNumbered(env_, directory_, kWalPrefix, kWalSuffix, &logs); !s.ok()) return s;
  const uint64_t wal_start = WalStart();
  std::erase_if(logs, [wal_start](uint64_t n) { return n < wal_start; });
  std::vector<WalOp> ops;
  uint64_t documents = 0;
  ReplayHandlers handlers;
  handlers.on_record = [&](std::vector<ReplayedOp>& replayed) -> Status {
    documents += replayed.size();
    ops.clear();
    bool first = true;
    for (ReplayedOp& op : replayed) {
      const bool change = op.kind == EntryKind::kPut || op.kind == EntryKind::kDelete;
      if (change && !segments_.Holds(op.address, op.id, op.kind)) {
        // A replica's entry whose block never reached its segment log is fetched again from the
        // updater; it was never readable here.
        if (op.replicated) continue;
        // Its block never reached the segment log: write the entry again (a batch in one block).
        if (Status s = segments_.Append(op.id, op.kind, op.doc, &op.address, first); !s.ok()) {
          return s;
        }
        first = false;
        appended_docs_.fetch_add(1);
      }
      ops.push_back({op.id, op.kind, op.address, op.doc, op.replicated});
    }
    return ApplyOps(ops);
  };
  handlers.on_damaged_id = [&](uint64_t id) {
    corruptions_.fetch_add(1);
    const WalOp op{id, EntryKind::kCorrupted, {}, {}};
    ApplyOps(std::span<const WalOp>(&op, 1));
  };
  // A log takes records only once the one before it is fsynced whole (StartWal), so a crash while
  // the log rotated leaves the previous one with a torn tail and only empty logs after it: the
  // last log that holds any bytes is the one whose tail may be torn.
  size_t last_written = logs.empty() ? 0 : logs.size() - 1;
  while (last_written > 0) {
    uint64_t size = 0;
    const int error = env_->FileSize(PathFor(kWalPrefix, logs[last_written], kWalSuffix), &size);
    if (error != 0 || size > 0) break;
    --last_written;
  }
  ReplayReport total;
  const uint64_t appended_before = appended_docs_.load();
  for (size_t i = 0; i < logs.size(); ++i) {
    ReplayReport report;
    const std::string path = PathFor(kWalPrefix, logs[i], kWalSuffix);
    if (Status s = ReplayWal(path, i >= last_written, options_, handlers, &report); !s.ok()) {
      return s;
    }
    corruptions_.fetch_add(report.unidentified_damage);
    total.records += report.records;
    total.damaged_records += report.damaged_records;
    total.unidentified_damage += report.unidentified_damage;
    total.truncated_bytes += report.truncated_bytes;
  }
  LogRecovery(logs.size(), total, documents, appended_docs_.load() - appended_before);
  return MemEntries() == 0 ? Status::Ok() : FlushDuringReplay();
}

void DocStoreImpl::LogRecovery(size_t logs, const ReplayReport& total, uint64_t documents,
                               uint64_t rewritten) {
  // One line on every open, so an operator can always tell what a restart brought back.
  std::string line = "recovery of " + directory_ + ": replayed " + std::to_string(total.records) +
                     " log records (" + std::to_string(documents) + " changes) from " +
                     std::to_string(logs) + " write-ahead logs; " + std::to_string(rewritten) +
                     " documents written again to the segment log; " +
                     std::to_string(total.truncated_bytes) + " torn bytes cut off";
  const uint64_t damaged = total.damaged_records + total.unidentified_damage;
  line += damaged == 0 ? "; no damage"
                       : "; " + std::to_string(damaged) + " damaged records (see the errors above)";
  LogTo(options_, damaged == 0 ? LogLevel::kInfo : LogLevel::kWarning, line);
}

Status DocStoreImpl::FlushDuringReplay() {
  // No log rotation here: the logs being replayed stay until all of them are in on-disk indexes
  // (Init deletes them then), so a crash during recovery just replays them again.
  if (Status s = segments_.Seal(); !s.ok()) return s;
  std::shared_ptr<const MemTable> table;
  {
    WriterLock mem(&mem_mu_);
    table = std::move(mem_);
    mem_ = std::make_unique<MemTable>(MemTableCapacity());
  }
  return FlushFrozen({std::move(table), segments_.end(), WalStart()});
}

Status DocStoreImpl::ApplyOps(std::span<const WalOp> ops) {
  // During replay only: no other thread runs yet.
  if (!MemHasRoom(ops.size())) {
    if (Status s = FlushDuringReplay(); !s.ok()) return s;
  }
  WriterLock mem(&mem_mu_);
  for (const WalOp& op : ops) {
    const std::optional<IndexValue> previous = mem_->Get(op.id);
    if (previous && previous->kind == EntryKind::kPut) dead_docs_.fetch_add(1);
    mem_->Put(op.id, {op.kind, op.address});
  }
  return Status::Ok();
}

// --- Writes -------------------------------------------------------------------------------------

Status DocStoreImpl::Put(uint64_t id, std::string_view doc) {
  // On the stack: a single write allocates nothing here.
  WalOp op{id, EntryKind::kPut, {}, doc};
  return WriteOps(std::span<WalOp>(&op, 1), nullptr);
}

Status DocStoreImpl::Delete(uint64_t id) {
  WalOp op{id, EntryKind::kDelete, {}, {}};
  return WriteOps(std::span<WalOp>(&op, 1), nullptr);
}

Status DocStoreImpl::Write(const WriteBatch& batch) { return Write(batch, nullptr); }

Status DocStoreImpl::Write(const WriteBatch& batch, uint64_t* position) {
  return WriteBatchOps(batch, position, /*may_wait=*/true);
}

Status DocStoreImpl::WriteNoWait(const WriteBatch& batch, uint64_t* position) {
  if (options_.sync == SyncPolicy::kEveryWrite) {
    return Status::WouldWait("every write is synced before its answer");
  }
  return WriteBatchOps(batch, position, /*may_wait=*/false);
}

Status DocStoreImpl::WriteBatchOps(const WriteBatch& batch, uint64_t* position, bool may_wait) {
  if (batch.size() == 0) {
    if (position) *position = AppliedPosition();
    return Status::Ok();
  }
  std::vector<WalOp> ops;
  ops.reserve(batch.size());
  for (const WriteBatch::Op& op : batch.ops()) {
    ops.push_back({op.id, op.is_delete ? EntryKind::kDelete : EntryKind::kPut, {}, op.doc});
  }
  return WriteOps(ops, position, may_wait);
}

bool DocStoreImpl::LockWriters(bool may_wait) {
  if (may_wait) {
    write_mu_.lock();
    return true;
  }
  // Another writer's append holds it for a few microseconds; a flush, snapshot or stall for
  // longer than these tries take.
  constexpr int kTries = 64;
  for (int i = 0; i < kTries; ++i) {
    if (write_mu_.try_lock()) return true;
    std::this_thread::yield();
  }
  return false;
}

Status DocStoreImpl::WritableLocked() {
  if (closed_) return Status::InvalidArgument("the store is closed");
  if (sync_failed_.load(std::memory_order_acquire)) return SyncFailure();
  return Status::Ok();
}

Status DocStoreImpl::WriteOps(std::span<WalOp> ops, uint64_t* position, bool may_wait) {
  if (options_.replica) {
    return Status::InvalidArgument(
        "this store is a replica: it takes changes only from its updater's queue");
  }
  if (!LockWriters(may_wait)) return Status::WouldWait("another writer holds the store");
  MutexLock lock(&write_mu_, std::adopt_lock);
  if (Status s = WritableLocked(); !s.ok()) return s;
  if (!may_wait && !MemHasRoom(ops.size())) {
    return Status::WouldWait("the in-memory index is full: it must be frozen first");
  }
  if (Status s = MakeRoom(ops.size()); !s.ok()) return s;
  uint64_t puts = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    WalOp& op = ops[i];
    // Only the first entry may begin a segment, and so answer WouldWait, before anything changed.
    if (Status s = segments_.Append(op.id, op.kind, op.doc, &op.address, i == 0, may_wait);
        !s.ok()) {
      return s;
    }
    if (op.kind == EntryKind::kPut) ++puts;
  }
  if (Status s = LogAndIndex(ops); !s.ok()) return s;
  appended_docs_.fetch_add(ops.size(), std::memory_order_relaxed);
  writes_.fetch_add(puts, std::memory_order_relaxed);
  deletes_.fetch_add(ops.size() - puts, std::memory_order_relaxed);
  if (position) {
    const DocAddress& last = ops.back().address;
    *position = segments_.QueuePositionOf({last.segment, last.block_offset}) + 1;
  }
  // The batch began a block (its first entry is the block's first): the seal thread writes it out
  // by seal_after. Blocks begun later in the batch are seen by the seal thread itself.
  if (ops.front().address.index == 0) ScheduleSeal();
  return Status::Ok();
}

Status DocStoreImpl::LogAndIndex(std::span<const WalOp> ops) {
  if (Status s = LogOps(ops); !s.ok()) return s;
  IndexOps(ops);
  return Status::Ok();
}

Status DocStoreImpl::LogOps(std::span<const WalOp> ops) {
  if (Status s = wal_.Append(ops); !s.ok()) return s;
  wal_bytes_.store(wal_.bytes(), std::memory_order_relaxed);
  if (options_.sync == SyncPolicy::kEveryWrite) {
    if (Status s = wal_.Sync(); !s.ok()) {
      RecordSyncFailure(s);
      return SyncFailure();
    }
  } else if (options_.sync == SyncPolicy::kInterval &&
             wal_appends_.fetch_add(1) == wal_synced_when_idle_.load()) {
    // The first append since the sync thread went idle wakes it (under its mutex, so the wake
    // cannot fall between its check and its wait).
    MutexLock bg(&bg_mu_);
    bg_cv_.NotifyAll();
  }
  return Status::Ok();
}

void DocStoreImpl::IndexOps(std::span<const WalOp> ops) {
  uint64_t superseded = 0;
  {
    WriterLock mem(&mem_mu_);
    for (const WalOp& op : ops) {
      const std::optional<IndexValue> previous = mem_->Get(op.id);
      if (previous && previous->kind == EntryKind::kPut) ++superseded;
      mem_->Put(op.id, {op.kind, op.address});
    }
  }
  // After the index changed: a reader that read the old copy cannot cache it any more.
  for (const WalOp& op : ops) cache_.Invalidate(op.id);
  dead_docs_.fetch_add(superseded, std::memory_order_relaxed);
}

Status DocStoreImpl::MakeRoom(size_t count) {
  if (count > MemTableCapacity()) {
    return Status::InvalidArgument("a batch of " + std::to_string(count) +
                                   " writes exceeds the in-memory index (" +
                                   std::to_string(MemTableCapacity()) + " entries)");
  }
  while (!MemHasRoom(count)) {
    MutexLock bg(&bg_mu_);
    if (!bg_error_.ok()) return bg_error_;
    if (!pending_) {
      bg.Unlock();
      if (Status s = Freeze(); !s.ok()) return s;
      continue;
    }
    // The previous in-memory index is still being written: wait, within bounds.
    stalls_.fetch_add(1);
    const Clock::time_point start = Clock::now();
    const Clock::time_point deadline = start + options_.max_write_stall;
    const Clock::time_point warn_at = start + options_.write_stall_warning;
    bool warned = warn_at >= deadline;
    while (!BackgroundSettled()) {
      if (bg_cv_.WaitUntil(bg_mu_, warned ? deadline : warn_at)) continue;
      if (warned) break;  // The deadline.
      warned = true;
      bg.Unlock();
      LogTo(options_, LogLevel::kWarning,
            "writes have waited " + std::to_string(options_.write_stall_warning.count()) +
                " ms for the previous in-memory index to be written (the disk is slower than "
                "the writes); they fail after " +
                std::to_string(options_.max_write_stall.count()) + " ms");
      bg.Lock();
    }
    const bool cleared = BackgroundSettled();
    stall_us_.fetch_add(static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count()));
    if (!cleared) {
      return Status::Busy(
          "the in-memory index is full and the previous one has not been written "
          "within " +
          std::to_string(options_.max_write_stall.count()) + " ms");
    }
    if (bg_stop_) return Status::InvalidArgument("the store is closing");
  }
  return Status::Ok();
}

Status DocStoreImpl::StartWal() {
  const uint64_t number = next_file_.fetch_add(1);
  const std::string path = PathFor(kWalPrefix, number, kWalSuffix);
  WalWriter next;
  if (Status s = WalWriter::Create(env_, path, number, &next); !s.ok()) return s;
  auto sync_file = std::make_shared<File>();
  if (Status s = File::Open(env_, path, File::Mode::kRead, false, sync_file.get()); !s.ok())
    return s;
  if (Status s = SyncDirectory(env_, directory_); !s.ok()) return s;
  if (wal_.is_open()) {
    // The old log must be complete on disk before the new one takes over.
    if (Status s = wal_.Finish(); !s.ok()) {
      RecordSyncFailure(s);
      return SyncFailure();
    }
  }
  wal_ = std::move(next);
  wal_bytes_.store(wal_.bytes(), std::memory_order_relaxed);
  MutexLock lock(&wal_sync_mu_);
  wal_sync_file_ = std::move(sync_file);
  return Status::Ok();
}

void DocStoreImpl::RecordSyncFailure(const Status& failure) {
  {
    MutexLock lock(&wal_sync_mu_);
    if (!sync_failed_.load(std::memory_order_relaxed)) {
      sync_failure_ =
          Status::IOError("fsync of the write-ahead log failed (" + failure.ToString() +
                          "); writes are refused until the store is reopened, reads go on");
    }
    sync_failed_.store(true, std::memory_order_release);
  }
  LogTo(options_, LogLevel::kError, SyncFailure().ToString());
}

Status DocStoreImpl::SyncFailure() {
  MutexLock lock(&wal_sync_mu_);
  return sync_failure_;
}

bool DocStoreImpl::MemHasRoom(size_t count) const {
  ReaderLock mem(&mem_mu_);
  // A group larger than memtable_entries (a replica's big block) goes into an empty one.
  return mem_->size() + count <= options_.memtable_entries ||
         (mem_->size() == 0 && count <= mem_->capacity());
}

size_t DocStoreImpl::MemTableCapacity() const {
  const size_t block_entries = std::numeric_limits<uint16_t>::max();
  return options_.replica ? std::max(options_.memtable_entries, block_entries)
                          : options_.memtable_entries;
}

size_t DocStoreImpl::MemEntries() const {
  ReaderLock mem(&mem_mu_);
  return mem_->size();
}

uint64_t DocStoreImpl::WalStart() {
  MutexLock change(&change_mu_);
  return manifest_.wal_start;
}

bool DocStoreImpl::BackgroundSettled() const { return !pending_ || bg_stop_ || !bg_error_.ok(); }

Status DocStoreImpl::Freeze() {
  // Every document the frozen index points at must be in a written block before its log goes.
  if (Status s = segments_.Seal(); !s.ok()) return s;
  const LogPosition horizon = segments_.end();
  if (Status s = StartWal(); !s.ok()) return s;
  std::shared_ptr<const MemTable> frozen;
  {
    WriterLock mem(&mem_mu_);
    frozen_table_ = std::shared_ptr<const MemTable>(std::move(mem_));
    frozen = frozen_table_;
    mem_ = std::make_unique<MemTable>(MemTableCapacity());
  }
  {
    MutexLock bg(&bg_mu_);
    pending_ = Frozen{std::move(frozen), horizon, wal_.number()};
  }
  bg_cv_.NotifyAll();
  return Status::Ok();
}

// --- Flushes and compactions --------------------------------------------------------------------

Status DocStoreImpl::FlushFrozen(const Frozen& frozen) {
  if (Status s = segments_.SyncTo(frozen.horizon); !s.ok()) return s;
  MutexLock change(&change_mu_);
  const std::shared_ptr<const IndexSet> set = CurrentSet();
  // The seed's compaction set (storage/compaction_rule.h, which the console uses to predict it).
  std::vector<uint64_t> sizes;
  for (const auto& index : set->indexes) sizes.push_back(index->file->entries());
  const size_t merged = FlushMergeCount(frozen.table->size(), sizes);
  const std::vector<std::shared_ptr<DiskIndex>> inputs(
      set->indexes.begin(), set->indexes.begin() + static_cast<std::ptrdiff_t>(merged));
  Status s = InstallIndex(inputs, std::make_unique<VectorSource>(frozen.table->SortedEntries()),
                          frozen.table->size(), &frozen, false);
  if (!s.ok() && !inputs.empty()) {
    LogTo(options_, LogLevel::kError,
          "compaction failed (" + s.ToString() + "); writing the in-memory index on its own");
    s = InstallIndex({}, std::make_unique<VectorSource>(frozen.table->SortedEntries()),
                     frozen.table->size(), &frozen, false);
  }
  if (!s.ok()) return s;
  {
    WriterLock mem(&mem_mu_);
    if (frozen_table_ == frozen.table) frozen_table_.reset();
  }
  RemoveOldWals(frozen.next_wal);
  return Status::Ok();
}

namespace {

// The set with the `count` indexes from `position` on replaced by `output` (none if null).
std::shared_ptr<IndexSet> Replaced(const IndexSet& set, size_t position, size_t count,
                                   const std::shared_ptr<DiskIndex>& output) {
  auto next = std::make_shared<IndexSet>();
  next->indexes.assign(set.indexes.begin(), set.indexes.begin() + position);
  if (output) next->indexes.push_back(output);
  next->indexes.insert(next->indexes.end(), set.indexes.begin() + position + count,
                       set.indexes.end());
  return next;
}

}  // namespace

Status DocStoreImpl::InstallIndex(const std::vector<std::shared_ptr<DiskIndex>>& inputs,
                                  std::unique_ptr<EntrySource> newest_source,
                                  uint64_t newest_entries, const Frozen* frozen, bool manual) {
  const Clock::time_point start = Clock::now();
  const std::shared_ptr<const IndexSet> set = CurrentSet();
  // Where the inputs sit in the set (a memtable flush goes in front of everything).
  size_t position = 0;
  if (!inputs.empty()) {
    position = static_cast<size_t>(
        std::find(set->indexes.begin(), set->indexes.end(), inputs.front()) - set->indexes.begin());
  }
  const bool becomes_oldest = position + inputs.size() == set->indexes.size();
  const bool from_memory = newest_source != nullptr;
  const uint64_t number = next_file_.fetch_add(1);
  MergeResult merged;
  std::shared_ptr<DiskIndex> output;
  if (Status s = WriteMergedIndex(inputs, std::move(newest_source), newest_entries, becomes_oldest,
                                  number, &merged, &output);
      !s.ok()) {
    return s;
  }
  const std::shared_ptr<IndexSet> next_set = Replaced(*set, position, inputs.size(), output);
  if (Status s = CommitManifest(*next_set, frozen, merged); !s.ok()) {
    output.reset();
    DeleteFile(PathFor(kIndexPrefix, number, kIndexSuffix));
    DeleteFile(PathFor(kIndexPrefix, number, kBloomSuffix));
    return s;
  }

  UpdateSizeRule(*next_set);
  if (output) pager_.Add(output->filter);
  {
    MutexLock lock(&set_mu_);
    set_ = next_set;
  }
  CompactionStats record;
  if (from_memory) record.inputs.push_back(0);
  for (const auto& input : inputs) {
    record.inputs.push_back(input->file->number());
    pager_.Remove(input->filter.get());
    // Readers still holding the old set keep their mappings; the names can go now.
    DeleteFile(input->file->path());
    DeleteFile(PathFor(kIndexPrefix, input->file->number(), kBloomSuffix));
  }
  record.output = output ? number : 0;
  record.entries_written = merged.entries_written;
  record.bytes_written = merged.bytes_written;
  record.duration = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
  record.manual = manual;
  record.finished = std::chrono::system_clock::now();
  if (from_memory) ++flushes_;
  if (!inputs.empty()) {
    ++compactions_;
    bytes_compacted_ += record.bytes_written;
  }
  history_.push_back(std::move(record));
  if (history_.size() > kHistoryLimit) history_.pop_front();
  return Status::Ok();
}

Status DocStoreImpl::WriteMergedIndex(const std::vector<std::shared_ptr<DiskIndex>>& inputs,
                                      std::unique_ptr<EntrySource> newest_source,
                                      uint64_t newest_entries, bool becomes_oldest, uint64_t number,
                                      MergeResult* merged, std::shared_ptr<DiskIndex>* output) {
  std::vector<std::unique_ptr<EntrySource>> sources;
  uint64_t expected = newest_entries;
  if (newest_source) sources.push_back(std::move(newest_source));
  for (const auto& input : inputs) {
    sources.push_back(std::make_unique<IndexFileSource>(input->file));
    expected += input->file->entries();
  }
  const std::string index_path = PathFor(kIndexPrefix, number, kIndexSuffix);
  const std::string bloom_path = PathFor(kIndexPrefix, number, kBloomSuffix);
  Status s = MergeIndexes(std::move(sources), becomes_oldest, expected, options_, index_path,
                          bloom_path, merged);
  // Everything may have cancelled out: then there is no output index.
  if (s.ok() && merged->entries_written > 0) s = OpenIndex(number, output);
  if (!s.ok()) {
    DeleteFile(index_path);
    DeleteFile(bloom_path);
  }
  return s;
}

Status DocStoreImpl::CommitManifest(const IndexSet& next_set, const Frozen* frozen,
                                    const MergeResult& merged) {
  Manifest next_manifest = manifest_;
  next_manifest.indexes.clear();
  for (const auto& index : next_set.indexes) {
    next_manifest.indexes.push_back({index->file->number(), index->file->entries()});
  }
  if (frozen) {
    next_manifest.durable = frozen->horizon;
    next_manifest.wal_start = frozen->next_wal;
  }
  next_manifest.index_entry_writes += merged.entries_written;
  next_manifest.next_file = next_file_.load();
  dead_docs_.fetch_add(merged.superseded_docs);
  next_manifest.appended_docs = appended_docs_.load();
  next_manifest.dead_docs = dead_docs_.load();
  if (Status s = WriteFileAtomically(env_, (fs::path(directory_) / kManifestName).string(),
                                     EncodeManifest(next_manifest));
      !s.ok()) {
    return s;
  }
  manifest_ = std::move(next_manifest);
  return Status::Ok();
}

void DocStoreImpl::UpdateSizeRule(const IndexSet& set) {
  // Walk from the oldest: each index's share of the keys in it and all older indexes.
  uint64_t older_and_self = 0;
  for (auto it = set.indexes.rbegin(); it != set.indexes.rend(); ++it) {
    const uint64_t entries = (*it)->file->entries();
    older_and_self += entries;
    const double share = older_and_self == 0
                             ? 1.0
                             : static_cast<double>(entries) / static_cast<double>(older_and_self);
    (*it)->filter->set_size_rule_p_no(1.0 - share);
  }
}

std::shared_ptr<const IndexSet> DocStoreImpl::CurrentSet() const {
  MutexLock lock(&set_mu_);
  return set_;
}

void DocStoreImpl::RemoveOldWals(uint64_t keep_from) {
  std::vector<uint64_t> logs;
  if (Status s = ListNumbered(env_, directory_, kWalPrefix, kWalSuffix, &logs); !s.ok()) {
    // The manifest no longer names them: the next open removes them instead.
    LogTo(options_, LogLevel::kWarning, "could not delete old logs: " + s.ToString());
    return;
  }
  for (uint64_t n : logs) {
    if (n < keep_from) DeleteFile(PathFor(kWalPrefix, n, kWalSuffix));
  }
}

Status DocStoreImpl::Flush() {
  {
    MutexLock lock(&write_mu_);
    if (closed_) return Status::InvalidArgument("the store is closed");
    if (MemEntries() > 0) {
      if (Status s = WaitForBackground(options_.max_write_stall); !s.ok()) return s;
      if (Status s = Freeze(); !s.ok()) return s;
    }
  }
  return WaitForBackground(options_.max_write_stall);
}

Status DocStoreImpl::WaitForBackground(std::chrono::milliseconds timeout) {
  MutexLock bg(&bg_mu_);
  const Clock::time_point deadline = Clock::now() + timeout;
  while (!BackgroundSettled() && bg_cv_.WaitUntil(bg_mu_, deadline)) {
  }
  const bool done = BackgroundSettled();
  if (!bg_error_.ok()) return bg_error_;
  if (!done)
    return Status::Busy("background flush still running after " + std::to_string(timeout.count()) +
                        " ms");
  return Status::Ok();
}

Status DocStoreImpl::CompactAll() {
  if (Status s = Flush(); !s.ok()) return s;
  Status s;
  {
    MutexLock change(&change_mu_);
    const std::shared_ptr<const IndexSet> set = CurrentSet();
    if (set->indexes.empty()) return Status::Ok();
    s = InstallIndex(set->indexes, nullptr, 0, nullptr, true);
  }
  LoadIndexesIntoMemory();  // Once the inputs' copies are freed.
  return s;
}

Status DocStoreImpl::CompactIndexes(const std::vector<uint64_t>& index_ids) {
  const Status s = CompactIndexesNow(index_ids);
  LoadIndexesIntoMemory();  // Once the inputs' copies are freed.
  return s;
}

Status DocStoreImpl::CompactIndexesNow(const std::vector<uint64_t>& index_ids) {
  if (index_ids.empty()) return Status::InvalidArgument("no indexes named");
  MutexLock change(&change_mu_);
  const std::shared_ptr<const IndexSet> set = CurrentSet();
  std::vector<size_t> positions;
  std::string known;
  for (const auto& index : set->indexes) known += " " + std::to_string(index->file->number());
  for (uint64_t id : index_ids) {
    const auto it = std::find_if(set->indexes.begin(), set->indexes.end(),
                                 [id](const auto& index) { return index->file->number() == id; });
    if (it == set->indexes.end()) {
      return Status::InvalidArgument("no on-disk index " + std::to_string(id) + " (have:" + known +
                                     ")");
    }
    positions.push_back(static_cast<size_t>(it - set->indexes.begin()));
  }
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  if (positions.back() - positions.front() + 1 != positions.size()) {
    return Status::InvalidArgument("indexes to compact must be adjacent in age (have:" + known +
                                   ")");
  }
  std::vector<std::shared_ptr<DiskIndex>> inputs;
  for (size_t p : positions) inputs.push_back(set->indexes[p]);
  return InstallIndex(inputs, nullptr, 0, nullptr, true);
}

// --- Reads --------------------------------------------------------------------------------------

Status DocStoreImpl::Get(uint64_t id, std::string* doc) {
  reads_.fetch_add(1, std::memory_order_relaxed);
  if (cache_.Lookup(id, doc)) return Status::Ok();
  const uint64_t ticket = cache_.Ticket(id);
  std::optional<IndexValue> value;
  std::shared_ptr<const IndexSet> set;
  {
    ReaderLock mem(&mem_mu_);
    // Taken under mem_mu_ so that the set and the memtables agree: a flush installs its index
    // before it drops the frozen table, and drops it under mem_mu_.
    set = CurrentSet();
    // A lookup is a chain of cache misses (memtable slot, index page, log block). The first two
    // do not depend on each other: started together, they overlap rather than queue behind the
    // locks' atomic instructions, which wait for every load before them.
    mem_->Prefetch(id);
    for (const auto& index : set->indexes) index->file->Prefetch(id);
    value = mem_->Get(id);
    if (!value && frozen_table_) value = frozen_table_->Get(id);
  }
  if (!value) {
    for (const auto& index : set->indexes) {
      const BloomAnswer answer = index->filter->MayContain(id);
      if (answer == BloomAnswer::kNo) {
        bloom_negatives_.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      bool found = false;
      IndexValue found_value;
      if (Status s = index->file->Find(id, &found, &found_value); !s.ok()) {
        corruptions_.fetch_add(1);
        return s;
      }
      index->filter->RecordSearch(id, answer, found);
      if (found) {
        value = found_value;
        break;
      }
    }
  }
  if (!value || value->kind == EntryKind::kDelete) return Status::NotFound();
  if (value->kind == EntryKind::kCorrupted) {
    return Status::Corruption("document " + std::to_string(id) +
                              " was written in a damaged log record and cannot be read");
  }
  Status s = segments_.Read(value->address, id, doc);
  if (s.IsCorruption()) corruptions_.fetch_add(1);
  if (s.ok()) cache_.Insert(id, *doc, ticket);
  return s;
}

Status DocStoreImpl::Locate(uint64_t id, DocLocation* location) {
  *location = DocLocation{};
  std::optional<IndexValue> value;
  {
    ReaderLock mem(&mem_mu_);
    value = mem_->Get(id);
    if (!value && frozen_table_) value = frozen_table_->Get(id);
  }
  if (value) location->source = DocLocation::Source::kMemtable;
  if (!value) {
    const std::shared_ptr<const IndexSet> set = CurrentSet();
    for (const auto& index : set->indexes) {
      const BloomAnswer answer = index->filter->Probe(id);
      if (answer == BloomAnswer::kNo) {
        ++location->indexes_skipped;
        continue;
      }
      bool found = false;
      IndexValue found_value;
      if (Status s = index->file->Find(id, &found, &found_value); !s.ok()) return s;
      if (!found) continue;
      value = found_value;
      location->source = DocLocation::Source::kIndex;
      location->index_id = index->file->number();
      location->bloom_page = BloomPageOf(index->filter->file().shape(), id);
      location->bloom_page_resident = answer != BloomAnswer::kNotResident;
      break;
    }
  }
  if (!value) return Status::Ok();
  location->position =
      segments_.QueuePositionOf({value->address.segment, value->address.block_offset}) + 1;
  location->deleted = value->kind == EntryKind::kDelete;
  if (value->kind == EntryKind::kCorrupted) {
    return Status::Corruption("document " + std::to_string(id) +
                              " was written in a damaged log record and cannot be read");
  }
  if (location->deleted) return Status::Ok();
  std::string doc;
  if (Status s = segments_.Read(value->address, id, &doc); !s.ok()) return s;
  location->size = doc.size();
  location->checksum = Checksum64(doc.data(), doc.size());
  return Status::Ok();
}

Stats DocStoreImpl::GetStats() {
  Stats stats;
  const std::shared_ptr<const IndexSet> set = CurrentSet();
  for (const auto& index : set->indexes) {
    IndexStats is;
    is.id = index->file->number();
    is.entries = index->file->entries();
    is.bytes = index->file->bytes();
    is.created = index->file->created();
    is.bloom_bytes = index->filter->file().bytes();
    is.bloom_pages = index->filter->file().shape().page_count;
    is.measured_false_positive_rate = index->filter->measured_false_positive_rate();
    is.p_no = index->filter->size_rule_p_no();
    is.index_searches = index->filter->index_searches();
    is.in_memory = index->file->in_memory();
    stats.indexes.push_back(is);
  }
  {
    MutexLock change(&change_mu_);
    stats.compactions.assign(history_.begin(), history_.end());
    stats.index_entry_writes = manifest_.index_entry_writes;
    stats.flushes = flushes_;
    stats.compactions_done = compactions_;
    stats.bytes_compacted = bytes_compacted_;
  }
  {
    ReaderLock mem(&mem_mu_);
    stats.memtable_entries = mem_->size();
    stats.memtable_capacity = options_.memtable_entries;
  }
  stats.bloom_pages = pager_.PageStats();
  stats.bloom_budget_bytes = pager_.budget_bytes();
  stats.bloom_resident_bytes = pager_.resident_bytes();
  stats.reads = reads_.load();
  stats.writes = writes_.load();
  stats.deletes = deletes_.load();
  stats.write_stalls = stalls_.load();
  stats.stall_time = std::chrono::microseconds(stall_us_.load());
  stats.segment_bytes = segments_.stored_bytes();
  const uint64_t appended = appended_docs_.load();
  stats.dead_byte_share =
      appended == 0
          ? 0
          : std::min(1.0, static_cast<double>(dead_docs_.load()) / static_cast<double>(appended));
  stats.live_bytes = static_cast<uint64_t>(static_cast<double>(stats.segment_bytes) *
                                           (1.0 - stats.dead_byte_share));
  stats.corruptions_seen = corruptions_.load();
  if (sync_failed_.load(std::memory_order_acquire)) stats.writes_refused = SyncFailure().ToString();
  stats.cache = cache_.GetStats();
  stats.bloom_negatives = bloom_negatives_.load(std::memory_order_relaxed);
  stats.wal_bytes = wal_bytes_.load(std::memory_order_relaxed);
  stats.index_memory_budget_bytes = index_memory_->budget();
  stats.index_memory_bytes = index_memory_->used();
  stats.segment_reads_advised = segments_.advised_reads();
  return stats;
}

// --- Background work and shutdown ---------------------------------------------------------------

void DocStoreImpl::LoadIndexesIntoMemory() {
  const std::shared_ptr<const IndexSet> set = CurrentSet();
  uint64_t held = 0;  // By this set's copies.
  bool retry = false;
  for (const auto& index : set->indexes) {
    const uint64_t bytes = index->file->page_bytes();
    if (index->file->LoadIntoMemory(index_memory_)) {
      held += bytes;
    } else if (held + bytes <= index_memory_->budget()) {
      retry = true;  // Replaced indexes still hold the room.
    }
  }
  if (retry) {
    MutexLock bg(&bg_mu_);
    index_load_due_ = true;
  }
}

void DocStoreImpl::BackgroundLoop() {
  MutexLock bg(&bg_mu_);
  while (!bg_stop_) {
    while (!bg_stop_ && !pending_.has_value()) {
      if (!index_load_due_) {
        bg_cv_.Wait(bg_mu_);
        continue;
      }
      const Clock::time_point retry = Clock::now() + std::chrono::seconds(1);
      while (!bg_stop_ && !pending_.has_value() && bg_cv_.WaitUntil(bg_mu_, retry)) {
      }
      if (bg_stop_ || pending_.has_value()) continue;
      index_load_due_ = false;
      bg.Unlock();
      LoadIndexesIntoMemory();
      bg.Lock();
    }
    if (bg_stop_) break;
    const Frozen job = *pending_;
    bg.Unlock();
    const Status s = FlushFrozen(job);
    if (s.ok()) LoadIndexesIntoMemory();  // Before Flush() returns, once the inputs are freed.
    bg.Lock();
    if (s.ok()) {
      pending_.reset();
      bg_error_ = Status::Ok();
    } else {
      bg_error_ = s;
      LogTo(options_, LogLevel::kError, "writing the in-memory index failed: " + s.ToString());
      // Try again later (a full disk may get space back); writers see the error meanwhile.
      bg_cv_.NotifyAll();
      const Clock::time_point retry = Clock::now() + std::chrono::seconds(1);
      while (!bg_stop_ && bg_cv_.WaitUntil(bg_mu_, retry)) {
      }
    }
    bg_cv_.NotifyAll();
  }
}

void DocStoreImpl::SyncLoop() {
  MutexLock bg(&bg_mu_);
  uint64_t synced_appends = 0;
  while (!bg_stop_) {
    // Nothing appended since the last sync: sleep until an append, not an interval. An idle
    // node (a fleet of replicas, mostly) otherwise fsyncs an unchanged log ten times a second.
    wal_synced_when_idle_.store(synced_appends);
    while (!bg_stop_ && wal_appends_.load() == synced_appends) bg_cv_.Wait(bg_mu_);
    if (bg_stop_) break;
    const Clock::time_point deadline = Clock::now() + options_.sync_interval;
    while (!bg_stop_ && bg_cv_.WaitUntil(bg_mu_, deadline)) {
    }
    if (bg_stop_) break;
    const uint64_t appends = wal_appends_.load();
    bg.Unlock();
    Status synced;
    {
      // Held across the fsync, so a log rotation (which takes this lock to switch files) waits
      // for it: a sync that starts after a write was acknowledged is then always of that write's
      // log or a newer one, never of a log it replaced.
      MutexLock lock(&wal_sync_mu_);
      if (wal_sync_file_) synced = wal_sync_file_->Sync();
    }
    if (synced.ok()) {
      synced_appends = appends;  // A failed sync is tried again an interval later.
    } else {
      RecordSyncFailure(synced);
    }
    bg.Lock();
  }
}

Status DocStoreImpl::Close() {
  Status result;
  {
    MutexLock lock(&write_mu_);
    if (closed_) return Status::Ok();
    closed_ = true;
    // Written blocks need no replay; the log is made durable whatever the policy.
    result = segments_.Seal();
    if (wal_.is_open()) {
      if (Status s = wal_.Finish(); result.ok()) result = s;
    }
  }
  {
    MutexLock seal(&seal_mu_);
    seal_stop_ = true;
  }
  seal_cv_.NotifyAll();
  if (seal_thread_.joinable()) seal_thread_.join();
  {
    MutexLock bg(&bg_mu_);
    bg_stop_ = true;
  }
  bg_cv_.NotifyAll();
  if (bg_thread_.joinable()) bg_thread_.join();
  if (sync_thread_.joinable()) sync_thread_.join();
  pager_.Stop();
  if (lock_ >= 0) {
    env_->UnlockFile(lock_path_, lock_);
    lock_ = -1;
  }
  return result;
}

}  // namespace railyard::storage
