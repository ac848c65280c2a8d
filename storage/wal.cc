// SPDX-License-Identifier: Apache-2.0
#include "storage/wal.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>

#include "storage/coding.h"
#include "storage/log.h"

namespace railyard::storage {

namespace {

constexpr uint32_t kWalMagic = 0x4c575952;  // "RYWL"
constexpr uint32_t kMaxOpsPerRecord = 1u << 20;
constexpr size_t kFixedHeaderBytes = 12;  // magic, count, body_len
constexpr size_t kOpFixedBytes = 8 + 1 + 4 + 4 + 2 + 4;

size_t HeaderBytes(uint32_t count) { return kFixedHeaderBytes + 8 * size_t{count} + 4; }

// A record located in the file: where its header and body start and how long each is.
struct Located {
  size_t start = 0;
  uint32_t count = 0;
  uint32_t body_len = 0;
  size_t total() const { return HeaderBytes(count) + body_len + 8; }
};

// Checks the header at `pos`; does not look at the body.
std::optional<Located> HeaderAt(std::string_view data, size_t pos) {
  if (data.size() - pos < kFixedHeaderBytes + 4) return std::nullopt;
  const char* p = data.data() + pos;
  if (DecodeFixed32(p) != kWalMagic) return std::nullopt;
  const uint32_t count = DecodeFixed32(p + 4);
  const uint32_t body_len = DecodeFixed32(p + 8);
  if (count == 0 || count > kMaxOpsPerRecord) return std::nullopt;
  const size_t header = HeaderBytes(count);
  if (data.size() - pos < header) return std::nullopt;
  if (Checksum32(p, header - 4) != DecodeFixed32(p + header - 4)) return std::nullopt;
  return Located{pos, count, body_len};
}

// Decodes and verifies a body of `count` ops.
bool DecodeBody(std::string_view body_and_sum, uint32_t count, std::vector<ReplayedOp>* ops) {
  if (body_and_sum.size() < 8) return false;
  const std::string_view body = body_and_sum.substr(0, body_and_sum.size() - 8);
  if (Checksum64(body.data(), body.size()) != DecodeFixed64(body.data() + body.size()))
    return false;
  ops->clear();
  size_t pos = 0;
  for (uint32_t i = 0; i < count; ++i) {
    if (body.size() - pos < kOpFixedBytes) return false;
    const char* p = body.data() + pos;
    ReplayedOp op;
    op.id = DecodeFixed64(p);
    op.kind = static_cast<EntryKind>(static_cast<uint8_t>(p[8]) & ~kReplicatedFlag);
    op.replicated = (static_cast<uint8_t>(p[8]) & kReplicatedFlag) != 0;
    op.address.segment = DecodeFixed32(p + 9);
    op.address.block_offset = DecodeFixed32(p + 13);
    op.address.index = DecodeFixed16(p + 17);
    const uint32_t doc_len = DecodeFixed32(p + 19);
    pos += kOpFixedBytes;
    if (body.size() - pos < doc_len) return false;
    op.doc.assign(body.data() + pos, doc_len);
    pos += doc_len;
    ops->push_back(std::move(op));
  }
  return pos == body.size();
}

// The next offset after `from` where an intact header starts, or npos.
size_t NextHeader(std::string_view data, size_t from) {
  char magic[4];
  EncodeFixed32(magic, kWalMagic);
  for (size_t pos = from; pos + 4 <= data.size(); ++pos) {
    pos = data.find(std::string_view(magic, 4), pos);
    if (pos == std::string_view::npos) return pos;
    if (HeaderAt(data, pos)) return pos;
  }
  return std::string_view::npos;
}

// True if `data` is a run of intact records from start to end.
bool AllRecordsIntact(std::string_view data) {
  std::vector<ReplayedOp> ops;
  size_t pos = 0;
  while (pos < data.size()) {
    if (std::all_of(data.begin() + static_cast<std::ptrdiff_t>(pos), data.end(),
                    [](char c) { return c == 0; })) {
      return true;  // A mapped writer's unused space.
    }
    const std::optional<Located> rec = HeaderAt(data, pos);
    if (!rec || data.size() - pos < rec->total()) return false;
    const size_t body_at = pos + HeaderBytes(rec->count);
    if (!DecodeBody(data.substr(body_at, rec->body_len + 8), rec->count, &ops)) return false;
    pos += rec->total();
  }
  return true;
}

}  // namespace

Status WalWriter::Create(Env* env, const std::string& path, uint64_t number, WalWriter* out) {
  *out = WalWriter();
  out->number_ = number;
  if (env == Env::Default()) {
    if (Status s = File::Open(env, path, File::Mode::kReadWrite, true, &out->file_); !s.ok()) {
      return s;
    }
    if (Status s = out->file_.Size(&out->bytes_); !s.ok()) return s;
    if (out->MapWindow(out->bytes_).ok()) return Status::Ok();
    out->file_.Close();  // No fallocate or mmap here: write(2) it is.
  }
  if (Status s = File::Open(env, path, File::Mode::kAppend, true, &out->file_); !s.ok()) return s;
  return out->file_.Size(&out->bytes_);
}

WalWriter::~WalWriter() { Unmap(); }

WalWriter::WalWriter(WalWriter&& other) noexcept { *this = std::move(other); }

WalWriter& WalWriter::operator=(WalWriter&& other) noexcept {
  if (this == &other) return *this;
  Unmap();
  file_ = std::move(other.file_);
  broken_ = std::move(other.broken_);
  number_ = other.number_;
  bytes_ = other.bytes_;
  buffer_ = std::move(other.buffer_);
  window_ = std::exchange(other.window_, nullptr);
  window_start_ = other.window_start_;
  return *this;
}

Status WalWriter::MapWindow(uint64_t at) {
  const uint64_t start = at / kMapWindowBytes * kMapWindowBytes;
  if (window_ != nullptr) {
    munmap(window_, kMapWindowBytes);
    window_ = nullptr;
  }
  // Blocks reserved up front, so a full disk is an error here rather than a SIGBUS on a store.
  if (const int error = posix_fallocate(file_.fd(), static_cast<off_t>(start), kMapWindowBytes);
      error != 0) {
    return ErrnoStatus("fallocate " + file_.path(), error);
  }
  void* mapped = mmap(nullptr, kMapWindowBytes, PROT_READ | PROT_WRITE, MAP_SHARED, file_.fd(),
                      static_cast<off_t>(start));
  if (mapped == MAP_FAILED) return ErrnoStatus("mmap " + file_.path(), errno);
  window_ = static_cast<char*>(mapped);
  window_start_ = start;
  return Status::Ok();
}

Status WalWriter::Unmap() {
  if (window_ == nullptr) return Status::Ok();
  munmap(window_, kMapWindowBytes);
  window_ = nullptr;
  return file_.Truncate(bytes_);
}

Status WalWriter::Finish() {
  if (Status s = Unmap(); !s.ok()) return s;
  return file_.Sync();
}

Status WalWriter::WriteAt(uint64_t at, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::pwrite(file_.fd(), bytes.data(), bytes.size(), static_cast<off_t>(at));
    if (n < 0) {
      if (errno == EINTR) continue;
      // As a failed MapWindow: the bytes so far lie past bytes_ and the next record overwrites
      // them.
      return ErrnoStatus("pwrite " + file_.path(), errno);
    }
    bytes.remove_prefix(static_cast<size_t>(n));
    at += static_cast<uint64_t>(n);
  }
  return Status::Ok();
}

Status WalWriter::AppendMapped(std::string_view record) {
  const bool write_through = record.size() >= kWriteThroughBytes;
  size_t done = 0;
  while (done < record.size()) {
    const uint64_t at = bytes_ + done;
    if (at >= window_start_ + kMapWindowBytes) {
      // A failure leaves the bytes so far past bytes_: the next record overwrites them, and a
      // crash first leaves them as a torn tail.
      if (Status s = MapWindow(at); !s.ok()) return s;
    }
    const size_t n = std::min<uint64_t>(window_start_ + kMapWindowBytes - at, record.size() - done);
    if (write_through) {
      if (Status s = WriteAt(at, record.substr(done, n)); !s.ok()) return s;
    } else {
      std::memcpy(window_ + (at - window_start_), record.data() + done, n);
    }
    done += n;
  }
  bytes_ += record.size();
  return Status::Ok();
}

Status WalWriter::Append(std::span<const WalOp> ops) {
  if (!broken_.ok()) return broken_;
  buffer_.clear();
  PutFixed32(buffer_, kWalMagic);
  PutFixed32(buffer_, static_cast<uint32_t>(ops.size()));
  PutFixed32(buffer_, 0);  // body_len, patched below
  for (const WalOp& op : ops) PutFixed64(buffer_, op.id);
  PutFixed32(buffer_, 0);  // header checksum, patched below
  const size_t body_start = buffer_.size();
  for (const WalOp& op : ops) {
    PutFixed64(buffer_, op.id);
    buffer_.push_back(
        static_cast<char>(static_cast<uint8_t>(op.kind) | (op.replicated ? kReplicatedFlag : 0)));
    PutFixed32(buffer_, op.address.segment);
    PutFixed32(buffer_, op.address.block_offset);
    PutFixed16(buffer_, op.address.index);
    PutFixed32(buffer_, static_cast<uint32_t>(op.doc.size()));
    buffer_.append(op.doc);
  }
  const size_t body_len = buffer_.size() - body_start;
  EncodeFixed32(buffer_.data() + 8, static_cast<uint32_t>(body_len));
  EncodeFixed32(buffer_.data() + body_start - 4, Checksum32(buffer_.data(), body_start - 4));
  PutFixed64(buffer_, Checksum64(buffer_.data() + body_start, body_len));
  if (window_ != nullptr) return AppendMapped(buffer_);
  if (Status s = file_.Append(buffer_); !s.ok()) {
    // Cut a partial record off so the next one is not appended behind garbage; if that fails
    // too, later records would land behind it, so refuse them until a reopen recovers.
    if (Status cut = file_.Truncate(bytes_); !cut.ok()) {
      broken_ = Status::IOError("write-ahead log needs a reopen after a failed write (" +
                                s.ToString() + ") and a failed truncate (" + cut.ToString() + ")");
    }
    return s;
  }
  bytes_ += buffer_.size();
  return Status::Ok();
}

namespace {

// Reads a whole log, once more if it looks damaged: damage may be a bad read rather than bad bytes
// on disk, and recovery acts on what it finds, for good (documents declared lost, a tail cut off).
Status ReadLog(const std::string& path, const Options& options, std::string* contents) {
  if (Status s = ReadWholeFile(EnvOf(options), path, contents); !s.ok()) return s;
  if (AllRecordsIntact(*contents)) return Status::Ok();
  std::string again;
  if (ReadWholeFile(EnvOf(options), path, &again).ok() && AllRecordsIntact(again)) {
    LogTo(options, LogLevel::kWarning, path + ": a damaged read, intact when read again");
    *contents = std::move(again);
  }
  return Status::Ok();
}

// One pass over a log's bytes, from the start: hands intact records to the handlers, reports
// damaged ones, and finds where a torn tail starts.
class LogScan {
 public:
  LogScan(std::string_view data, const std::string& path, bool last, const Options& options,
          const ReplayHandlers& handlers, ReplayReport* report)
      : data_(data),
        path_(path),
        last_(last),
        options_(options),
        handlers_(handlers),
        report_(report) {}

  Status Run() {
    while (pos_ < data_.size() && !done_) {
      if (ZerosFrom(pos_)) {
        // Space a mapped writer reserved and never used (the process ended before Finish).
        unused_at_ = pos_;
        break;
      }
      const std::optional<Located> rec = HeaderAt(data_, pos_);
      if (Status s = rec ? AtHeader(*rec) : AtDamage(); !s.ok()) return s;
    }
    return Status::Ok();
  }
  // Where the torn tail to cut off starts, if there is one.
  std::optional<size_t> truncate_at() const { return truncate_at_; }
  // Where a tail of zeros (reserved, unused) starts, if there is one and nothing was torn.
  std::optional<size_t> unused_at() const { return unused_at_; }

 private:
  bool ZerosFrom(size_t from) const {
    return std::all_of(data_.begin() + static_cast<std::ptrdiff_t>(from), data_.end(),
                       [](char c) { return c == 0; });
  }

  // A record whose header is intact starts at pos_.
  Status AtHeader(const Located& rec) {
    if (data_.size() - pos_ < rec.total()) return TornTail();  // Runs past the end: mid-write.
    const size_t body_at = pos_ + HeaderBytes(rec.count);
    if (DecodeBody(data_.substr(body_at, rec.body_len + 8), rec.count, &ops_)) {
      if (Status s = Deliver(); !s.ok()) return s;
    } else if (last_ && ZerosFrom(pos_ + rec.total())) {
      return TornTail();  // A damaged final record (maybe before unused space): torn.
    } else {
      ++report_->damaged_records;
      const char* ids = data_.data() + pos_ + kFixedHeaderBytes;
      for (uint32_t i = 0; i < rec.count; ++i) handlers_.on_damaged_id(DecodeFixed64(ids + 8 * i));
      LogTo(options_, LogLevel::kError,
            path_ + ": damaged record at offset " + std::to_string(pos_) + " (" +
                std::to_string(rec.count) + " documents now read back as corrupted)");
    }
    pos_ += rec.total();
    return Status::Ok();
  }

  // No intact header at pos_. The stretch up to the next one is one damaged record.
  Status AtDamage() {
    const size_t next = NextHeader(data_, pos_ + 1);
    if (next == std::string_view::npos) {
      if (last_) return TornTail();
      ++report_->unidentified_damage;
      LogTo(options_, LogLevel::kError,
            path_ + ": damaged bytes from offset " + std::to_string(pos_) + " to the end");
      done_ = true;
      return Status::Ok();
    }
    // The body (and its ids) may be intact behind a damaged header: try each plausible count.
    const std::string_view stretch = data_.substr(pos_, next - pos_);
    bool recovered = false;
    for (uint32_t count = 1; !recovered && HeaderBytes(count) + 8 <= stretch.size(); ++count) {
      if (DecodeBody(stretch.substr(HeaderBytes(count)), count, &ops_)) {
        recovered = true;
        if (Status s = Deliver(); !s.ok()) return s;
      }
    }
    if (!recovered) {
      ++report_->unidentified_damage;
      LogTo(options_, LogLevel::kError,
            path_ + ": unidentifiable damaged record at offset " + std::to_string(pos_) +
                "; documents written in it may read back an older version");
    } else {
      LogTo(options_, LogLevel::kWarning,
            path_ + ": recovered a record with a damaged header at offset " + std::to_string(pos_));
    }
    pos_ = next;
    return Status::Ok();
  }

  Status Deliver() {
    ++report_->records;
    return handlers_.on_record(ops_);
  }

  Status TornTail() {
    truncate_at_ = pos_;
    done_ = true;
    return Status::Ok();
  }

  const std::string_view data_;
  const std::string& path_;
  const bool last_;
  const Options& options_;
  const ReplayHandlers& handlers_;
  ReplayReport* const report_;
  std::vector<ReplayedOp> ops_;
  size_t pos_ = 0;
  bool done_ = false;
  std::optional<size_t> truncate_at_;
  std::optional<size_t> unused_at_;
};

Status TruncateTornTail(const std::string& path, const Options& options, std::string_view contents,
                        uint64_t offset, ReplayReport* report) {
  // A mapped writer reserves zeros past its last record: only the bytes before them were torn,
  // and an operator reading "torn bytes" should see the size of the cut record, not the reserve.
  const uint64_t written_end =
      std::max<uint64_t>(offset, contents.find_last_not_of('\0') + 1);  // npos + 1 == 0
  report->truncated_bytes = written_end - offset;
  std::string line = "truncating torn tail of " + path + ": " +
                     std::to_string(report->truncated_bytes) + " bytes after offset " +
                     std::to_string(offset);
  if (contents.size() > written_end) {
    line += " (and " + std::to_string(contents.size() - written_end) + " bytes of unused reserve)";
  }
  LogTo(options, LogLevel::kWarning, line);
  File file;
  Status s = File::Open(EnvOf(options), path, File::Mode::kReadWrite, false, &file);
  if (s.ok()) s = file.Truncate(offset);
  if (s.ok()) s = file.Sync();
  return s;
}

}  // namespace

Status ReplayWal(const std::string& path, bool last, const Options& options,
                 const ReplayHandlers& handlers, ReplayReport* report) {
  std::string contents;
  if (Status s = ReadLog(path, options, &contents); !s.ok()) return s;
  LogScan scan(contents, path, last, options, handlers, report);
  if (Status s = scan.Run(); !s.ok()) return s;
  if (scan.unused_at() && !scan.truncate_at()) {
    File file;
    Status s = File::Open(EnvOf(options), path, File::Mode::kReadWrite, false, &file);
    if (s.ok()) s = file.Truncate(*scan.unused_at());
    if (s.ok()) s = file.Sync();
    return s;
  }
  if (!scan.truncate_at()) return Status::Ok();
  return TruncateTornTail(path, options, contents, *scan.truncate_at(), report);
}

}  // namespace railyard::storage
