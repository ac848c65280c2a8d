// SPDX-License-Identifier: Apache-2.0
#include "core/node/flight_recorder.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <system_error>
#include <tuple>

#include "core/cluster/request_figures.h"
#include "core/trace/recording_reader.h"
#include "core/trace/recording_writer.h"

namespace railyard::node {

namespace {

constexpr char kFullFile[] = "full.rec";
constexpr char kDownsampledFile[] = "downsampled.rec";
// The recordings are trimmed this often, not on every snapshot: a DELETE per second would cost
// more than the appends.
constexpr int64_t kTrimFilesEveryMs = 60'000;

void AddTo(admin::FigureRange* range, double* sum, double value) {
  if (range->samples() == 0) {
    range->set_min(value);
    range->set_max(value);
  } else {
    range->set_min(std::min(range->min(), value));
    range->set_max(std::max(range->max(), value));
  }
  *sum += value;
  range->set_samples(range->samples() + 1);
  range->set_mean(*sum / range->samples());
}

size_t Cost(const std::string& bytes) { return bytes.size() + FlightRecorder::kOverheadBytes; }

}  // namespace

admin::Telemetry FlightRecorder::Stripped(const admin::Telemetry& snapshot) {
  admin::Telemetry t = snapshot;
  t.clear_slots();
  for (admin::ClientPool& pool : *t.mutable_pools()) {
    pool.clear_entries();
    pool.clear_policy_backends();
    pool.clear_subset();
    pool.clear_servers();
  }
  // Only where there is a store: an empty one would read as a store of zeros (a node that was
  // still opening its store, a service with no store at all).
  if (t.has_storage()) t.mutable_storage()->clear_bloom_pages();
  return t;
}

FlightRecorder::FlightRecorder(FlightRecorderOptions options) : options_(std::move(options)) {}

FlightRecorder::~FlightRecorder() {
  base::MutexLock lock(mu_);
  for (auto* writer : {full_writer_.get(), downsampled_writer_.get()}) {
    if (writer) writer->Close();
  }
}

base::Status FlightRecorder::Open(FlightRecorderOptions options,
                                  std::unique_ptr<FlightRecorder>* out) {
  std::unique_ptr<FlightRecorder> recorder(new FlightRecorder(std::move(options)));
  const std::string& dir = recorder->options_.dir;
  if (!dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
      return base::Status::IOError(dir +
                                   ": cannot make the flight recorder's folder: " + ec.message());
    base::MutexLock lock(recorder->mu_);
    for (auto [file, kept, writer] :
         {std::tuple{kFullFile, &recorder->full_, &recorder->full_writer_},
          std::tuple{kDownsampledFile, &recorder->downsampled_, &recorder->downsampled_writer_}}) {
      const std::string path = (std::filesystem::path(dir) / file).string();
      if (base::Status s = recorder->Load(path, kept); !s.ok()) {
        // Keep the damaged file for a look, and start afresh beside it.
        spdlog::warn("flight recorder: {}; set aside as {}.unreadable, starting empty",
                     s.ToString(), path);
        std::filesystem::rename(path, path + ".unreadable", ec);
        for (const char* suffix : {"-wal", "-shm"}) std::filesystem::remove(path + suffix, ec);
        kept->clear();
      }
      trace::WriterOptions writer_options;
      writer_options.writer = "railyard-node flight recorder";
      // Each snapshot is committed at once: a crash loses none (a commit a second is cheap).
      writer_options.commit_every_rows = 1;
      if (base::Status s = trace::RecordingWriter::Create(path, writer_options, writer); !s.ok()) {
        return base::Status::IOError("flight recorder: " + s.ToString());
      }
    }
    for (const Kept& k : recorder->full_) recorder->full_bytes_ += Cost(k.bytes);
    for (const Kept& k : recorder->downsampled_) recorder->downsampled_bytes_ += Cost(k.bytes);
    // Whatever was kept last time: the spans and the budget count from its newest snapshot.
    const int64_t newest = recorder->full_.empty() ? 0 : recorder->full_.back().unix_ms;
    if (newest > 0) recorder->Trim(newest);
  }
  *out = std::move(recorder);
  return base::Status::Ok();
}

base::Status FlightRecorder::Load(const std::string& path, std::deque<Kept>* into) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return base::Status::Ok();
  std::unique_ptr<trace::RecordingReader> reader;
  if (base::Status s = trace::RecordingReader::Open(path, &reader); !s.ok()) return s;
  std::unique_ptr<trace::SnapshotCursor> cursor = reader->NewSnapshotCursor(0);
  for (; cursor->Valid(); cursor->Next()) {
    const trace::Snapshot& snapshot = cursor->snapshot();
    if (!snapshot.status.ok()) continue;  // One damaged row: the others are still history.
    if (!into->empty() && snapshot.unix_ms < into->back().unix_ms) continue;
    into->push_back({snapshot.unix_ms, snapshot.telemetry.SerializeAsString()});
  }
  return cursor->status();
}

void FlightRecorder::Record(const admin::Telemetry& snapshot) {
  base::MutexLock lock(mu_);
  const int64_t now = snapshot.unix_ms();
  if (!full_.empty() && now < full_.back().unix_ms) return;
  Kept kept{now, snapshot.SerializeAsString()};
  full_bytes_ += Cost(kept.bytes);
  full_.push_back(std::move(kept));
  Persist(full_writer_.get(), snapshot);

  const int64_t bucket_ms = std::chrono::milliseconds(options_.bucket).count();
  const int64_t start = now - now % bucket_ms;
  if (bucket_.start_ms >= 0 && bucket_.start_ms != start) CloseBucket();
  if (bucket_.start_ms < 0) {
    bucket_.start_ms = start;
    bucket_.from_unix_ms = now;
  }
  const admin::Throughput& th = snapshot.throughput();
  AddTo(bucket_.figures.mutable_requests_per_s(), &bucket_.sums[0], th.requests_per_s());
  AddTo(bucket_.figures.mutable_errors_per_s(), &bucket_.sums[1], th.errors_per_s());
  AddTo(bucket_.figures.mutable_p99_us(), &bucket_.sums[2], cluster::RequestP99Us(th));
  if (snapshot.replication().lag_known()) {
    AddTo(bucket_.figures.mutable_lag_seconds(), &bucket_.sums[3],
          snapshot.replication().lag_seconds());
  }
  bucket_.figures.set_snapshots(bucket_.figures.snapshots() + 1);
  bucket_.last = snapshot;
  Trim(now);
}

void FlightRecorder::CloseBucket() {
  admin::Telemetry t = Stripped(bucket_.last);
  *t.mutable_downsampled() = bucket_.figures;
  t.mutable_downsampled()->set_from_unix_ms(bucket_.from_unix_ms);
  t.mutable_downsampled()->set_bucket_ms(
      static_cast<uint32_t>(std::chrono::milliseconds(options_.bucket).count()));
  Kept kept{t.unix_ms(), t.SerializeAsString()};
  downsampled_bytes_ += Cost(kept.bytes);
  downsampled_.push_back(std::move(kept));
  Persist(downsampled_writer_.get(), t);
  bucket_ = OpenBucket{};
}

void FlightRecorder::Persist(trace::RecordingWriter* writer, const admin::Telemetry& t) {
  if (!writer || !persistence_.ok()) return;
  if (base::Status s = writer->AppendSnapshot(t.node(), t); !s.ok()) StopPersisting(s);
}

void FlightRecorder::StopPersisting(const base::Status& why) {
  // Memory keeps recording; the folder's history ends here, and the log says why.
  persistence_ = why;
  spdlog::warn("flight recorder: no longer kept on disk: {}", why.ToString());
}

void FlightRecorder::Trim(int64_t now_ms) {
  const int64_t full_from = now_ms - std::chrono::milliseconds(options_.full_span).count();
  const int64_t downsampled_from =
      now_ms - std::chrono::milliseconds(options_.downsampled_span).count();
  const size_t downsampled_budget = options_.memory_budget_bytes / 4;
  auto drop = [](std::deque<Kept>& kept, size_t& bytes) {
    bytes -= Cost(kept.front().bytes);
    kept.pop_front();
  };
  while (!downsampled_.empty() && (downsampled_.front().unix_ms < downsampled_from ||
                                   downsampled_bytes_ > downsampled_budget)) {
    drop(downsampled_, downsampled_bytes_);
  }
  // The newest full snapshot stays whatever its size: a budget smaller than one snapshot still
  // shows now.
  while (full_.size() > 1 && (full_.front().unix_ms < full_from ||
                              full_bytes_ + downsampled_bytes_ > options_.memory_budget_bytes)) {
    drop(full_, full_bytes_);
  }
  // The files keep what memory keeps, trimmed now and then: a DELETE with every snapshot would
  // cost more than the appends.
  if (!full_writer_ || !persistence_.ok() || now_ms - trimmed_files_ms_ < kTrimFilesEveryMs) return;
  trimmed_files_ms_ = now_ms;
  base::Status s = full_writer_->DeleteSnapshotsBefore(full_.empty() ? 0 : full_.front().unix_ms);
  if (s.ok()) {
    s = downsampled_writer_->DeleteSnapshotsBefore(
        downsampled_.empty() ? 0 : downsampled_.front().unix_ms);
  }
  if (s.ok()) s = full_writer_->Commit();
  if (s.ok()) s = downsampled_writer_->Commit();
  if (!s.ok()) StopPersisting(s);
}

admin::History FlightRecorder::Read(int64_t from_unix_ms, int64_t to_unix_ms,
                                    size_t max_bytes) const {
  if (max_bytes == 0) max_bytes = kDefaultPageBytes;
  max_bytes = std::min(max_bytes, kMaxPageBytes);
  if (to_unix_ms <= 0) to_unix_ms = INT64_MAX;
  admin::History history;
  base::MutexLock lock(mu_);
  const Held held = HeldLocked();
  history.set_full_from_unix_ms(held.full_from_unix_ms);
  history.set_held_from_unix_ms(held.from_unix_ms);
  const int64_t full_from = full_.empty() ? INT64_MAX : held.full_from_unix_ms;
  size_t bytes = 0;
  auto take = [&](const Kept& k) {
    if (k.unix_ms < from_unix_ms || k.unix_ms > to_unix_ms) return true;
    if (history.snapshots_size() > 0 && bytes + k.bytes.size() > max_bytes) {
      history.set_more(true);
      history.set_next_from_unix_ms(k.unix_ms);
      return false;
    }
    bytes += k.bytes.size();
    history.add_snapshots()->ParseFromString(k.bytes);
    return true;
  };
  // Downsampled where full detail is no longer held, then full detail.
  for (const Kept& k : downsampled_) {
    if (k.unix_ms >= full_from) break;
    if (!take(k)) return history;
  }
  for (const Kept& k : full_) {
    if (!take(k)) return history;
  }
  return history;
}

FlightRecorder::Held FlightRecorder::held() const {
  base::MutexLock lock(mu_);
  return HeldLocked();
}

FlightRecorder::Held FlightRecorder::HeldLocked() const {
  Held h;
  h.full = full_.size();
  h.downsampled = downsampled_.size();
  h.bytes = full_bytes_ + downsampled_bytes_;
  h.full_from_unix_ms = full_.empty() ? 0 : full_.front().unix_ms;
  h.from_unix_ms = downsampled_.empty() ? h.full_from_unix_ms
                                        : std::min(downsampled_.front().unix_ms,
                                                   full_.empty() ? INT64_MAX : h.full_from_unix_ms);
  return h;
}

base::Status FlightRecorder::persistence() const {
  base::MutexLock lock(mu_);
  return persistence_;
}

}  // namespace railyard::node
