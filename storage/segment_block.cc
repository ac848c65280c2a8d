// SPDX-License-Identifier: Apache-2.0
#include "storage/segment_block.h"

#include <lz4.h>

#include "storage/coding.h"

namespace railyard::storage {

namespace {
constexpr uint8_t kFlagCompressed = 1;
constexpr uint8_t kFlagTombstones = 2;
// A block never holds more entries than its count field can say.
constexpr size_t kMaxBlockEntries = 65535;
}  // namespace

void BlockBuilder::Add(uint64_t id, EntryKind kind, std::string_view doc) {
  const bool deleted = kind == EntryKind::kDelete;
  offsets_.push_back(static_cast<uint32_t>(docs_.size()));
  PutFixed64(docs_, id);
  if (!deleted) docs_.append(doc);
  deleted_.push_back(deleted);
  tombstones_ = tombstones_ || deleted;
}

bool BlockBuilder::Get(uint16_t index, uint64_t expected_id, std::string* doc,
                       EntryKind* kind) const {
  if (index >= offsets_.size()) return false;
  const size_t start = offsets_[index];
  const size_t end = size_t{index} + 1 < offsets_.size() ? offsets_[index + 1] : docs_.size();
  if (DecodeFixed64(docs_.data() + start) != expected_id) return false;
  doc->assign(docs_.data() + start + 8, end - start - 8);
  *kind = deleted_[index] ? EntryKind::kDelete : EntryKind::kPut;
  return true;
}

std::string BlockBuilder::Encode() const {
  std::string raw;
  raw.reserve(raw_bytes());
  PutFixed32(raw, static_cast<uint32_t>(offsets_.size()));
  for (uint32_t offset : offsets_) PutFixed32(raw, offset);
  PutFixed32(raw, static_cast<uint32_t>(docs_.size()));
  raw.append(docs_);
  if (tombstones_) {
    std::string bitmap((offsets_.size() + 7) / 8, '\0');
    for (size_t i = 0; i < deleted_.size(); ++i) {
      if (deleted_[i]) bitmap[i / 8] = static_cast<char>(bitmap[i / 8] | (1 << (i % 8)));
    }
    raw.append(bitmap);
  }

  std::string out(kBlockHeaderBytes, '\0');
  const int bound = LZ4_compressBound(static_cast<int>(raw.size()));
  out.resize(kBlockHeaderBytes + static_cast<size_t>(bound));
  const int compressed = LZ4_compress_default(raw.data(), out.data() + kBlockHeaderBytes,
                                              static_cast<int>(raw.size()), bound);
  uint8_t flags = tombstones_ ? kFlagTombstones : 0;
  if (compressed > 0 && static_cast<size_t>(compressed) < raw.size() - raw.size() / 8) {
    flags |= kFlagCompressed;
    out.resize(kBlockHeaderBytes + static_cast<size_t>(compressed));
  } else {
    out.resize(kBlockHeaderBytes);
    out.append(raw);
  }
  char* h = out.data();
  EncodeFixed32(h, kBlockMagic);
  h[4] = static_cast<char>(flags);
  h[5] = 0;
  const uint16_t count = static_cast<uint16_t>(offsets_.size());
  h[6] = static_cast<char>(count);
  h[7] = static_cast<char>(count >> 8);
  EncodeFixed32(h + 8, static_cast<uint32_t>(raw.size()));
  EncodeFixed32(h + 12, static_cast<uint32_t>(out.size() - kBlockHeaderBytes));
  // The checksum covers the first 16 header bytes and the stored payload.
  uint64_t sum = Checksum64(h, 16) ^
                 Checksum64(out.data() + kBlockHeaderBytes, out.size() - kBlockHeaderBytes);
  EncodeFixed64(h + 16, sum);
  return out;
}

void BlockBuilder::Reset() {
  offsets_.clear();
  docs_.clear();
  deleted_.clear();
  tombstones_ = false;
}

Status ParseBlockHeader(const char* data, size_t size, BlockHeader* header) {
  if (size < kBlockHeaderBytes) return Status::Corruption("block header truncated");
  if (DecodeFixed32(data) != kBlockMagic) return Status::Corruption("bad block magic");
  header->compressed = (static_cast<uint8_t>(data[4]) & kFlagCompressed) != 0;
  header->tombstones = (static_cast<uint8_t>(data[4]) & kFlagTombstones) != 0;
  header->count = DecodeFixed16(data + 6);
  header->raw_len = DecodeFixed32(data + 8);
  header->stored_len = DecodeFixed32(data + 12);
  header->checksum = DecodeFixed64(data + 16);
  if (header->count == 0 || header->count > kMaxBlockEntries ||
      header->raw_len < 4 * (header->count + 2u) || header->stored_len == 0 ||
      (!header->compressed && header->stored_len != header->raw_len)) {
    return Status::Corruption("implausible block header");
  }
  return Status::Ok();
}

Status DecodeBlock(const char* data, size_t size, std::string* scratch, std::string_view* raw,
                   BlockHeader* parsed, bool verify_checksum) {
  BlockHeader local;
  BlockHeader& header = parsed ? *parsed : local;
  if (Status s = ParseBlockHeader(data, size, &header); !s.ok()) return s;
  if (size < header.total_bytes()) return Status::Corruption("block truncated");
  const char* payload = data + kBlockHeaderBytes;
  if (verify_checksum) {
    const uint64_t sum = Checksum64(data, 16) ^ Checksum64(payload, header.stored_len);
    if (sum != header.checksum) return Status::Corruption("block checksum mismatch");
  }
  if (!header.compressed) {
    *raw = std::string_view(payload, header.stored_len);
    return Status::Ok();
  }
  // LZ4 cannot expand data more than about 255 times: a larger claim is damage (or a forged
  // header), and believing it would allocate gigabytes.
  if (header.raw_len > uint64_t{header.stored_len} * 255 + 64) {
    return Status::Corruption("implausible block compression ratio");
  }
  scratch->resize(header.raw_len);
  const int n = LZ4_decompress_safe(payload, scratch->data(), static_cast<int>(header.stored_len),
                                    static_cast<int>(header.raw_len));
  if (n != static_cast<int>(header.raw_len)) return Status::Corruption("block does not decompress");
  *raw = *scratch;
  return Status::Ok();
}

namespace {

// The parts of a raw payload: count, count + 1 offsets into the entry area, the entry area, and
// with tombstones a bitmap of the deleted entries.
struct RawLayout {
  uint32_t count = 0;
  std::string_view entries;
  std::string_view bitmap;
};

Status ParseLayout(std::string_view raw, bool tombstones, RawLayout* layout) {
  if (raw.size() < 8) return Status::Corruption("block payload truncated");
  layout->count = DecodeFixed32(raw.data());
  const size_t table_bytes = 4 * (static_cast<size_t>(layout->count) + 2);
  if (table_bytes > raw.size()) return Status::Corruption("block offset table truncated");
  const uint32_t entry_bytes = DecodeFixed32(raw.data() + 4 * (1 + size_t{layout->count}));
  const size_t bitmap_bytes = tombstones ? (size_t{layout->count} + 7) / 8 : 0;
  if (table_bytes + entry_bytes + bitmap_bytes != raw.size()) {
    return Status::Corruption("block offset table damaged");
  }
  layout->entries = raw.substr(table_bytes, entry_bytes);
  layout->bitmap = raw.substr(table_bytes + entry_bytes);
  return Status::Ok();
}

Status EntryAt(std::string_view raw, const RawLayout& layout, uint32_t index, BlockEntry* entry) {
  const uint32_t start = DecodeFixed32(raw.data() + 4 * (1 + size_t{index}));
  const uint32_t end = DecodeFixed32(raw.data() + 4 * (2 + size_t{index}));
  if (start > end || end > layout.entries.size() || end - start < 8) {
    return Status::Corruption("block offset table damaged");
  }
  entry->id = DecodeFixed64(layout.entries.data() + start);
  const bool deleted =
      !layout.bitmap.empty() && (static_cast<uint8_t>(layout.bitmap[index / 8]) >> (index % 8)) & 1;
  entry->kind = deleted ? EntryKind::kDelete : EntryKind::kPut;
  if (deleted && end - start != 8) return Status::Corruption("block tombstone carries bytes");
  entry->doc = layout.entries.substr(start + 8, end - start - 8);
  return Status::Ok();
}

}  // namespace

Status EntryFromRawBlock(std::string_view raw, bool tombstones, uint16_t index,
                         uint64_t expected_id, BlockEntry* entry) {
  RawLayout layout;
  if (Status s = ParseLayout(raw, tombstones, &layout); !s.ok()) return s;
  if (index >= layout.count) return Status::Corruption("document index out of range");
  if (Status s = EntryAt(raw, layout, index, entry); !s.ok()) return s;
  if (entry->id != expected_id) {
    return Status::Corruption("block holds another document at this address");
  }
  return Status::Ok();
}

Status EntriesOfRawBlock(std::string_view raw, bool tombstones, std::vector<BlockEntry>* entries) {
  RawLayout layout;
  if (Status s = ParseLayout(raw, tombstones, &layout); !s.ok()) return s;
  entries->resize(layout.count);
  for (uint32_t i = 0; i < layout.count; ++i) {
    if (Status s = EntryAt(raw, layout, i, &(*entries)[i]); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace railyard::storage
