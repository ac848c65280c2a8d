#include "storage/segment_block.h"

#include <lz4.h>

#include "storage/coding.h"

namespace railyard::storage {

namespace {
constexpr uint8_t kFlagCompressed = 1;
// A block never holds more entries than its count field can say.
constexpr size_t kMaxBlockEntries = 65535;
}  // namespace

void BlockBuilder::Add(uint64_t id, std::string_view doc) {
  offsets_.push_back(static_cast<uint32_t>(docs_.size()));
  PutFixed64(docs_, id);
  docs_.append(doc);
}

bool BlockBuilder::Get(uint16_t index, uint64_t expected_id, std::string* doc) const {
  if (index >= offsets_.size()) return false;
  const size_t start = offsets_[index];
  const size_t end = size_t{index} + 1 < offsets_.size() ? offsets_[index + 1] : docs_.size();
  if (DecodeFixed64(docs_.data() + start) != expected_id) return false;
  doc->assign(docs_.data() + start + 8, end - start - 8);
  return true;
}

std::string BlockBuilder::Encode() const {
  std::string raw;
  raw.reserve(raw_bytes());
  PutFixed32(raw, static_cast<uint32_t>(offsets_.size()));
  for (uint32_t offset : offsets_) PutFixed32(raw, offset);
  PutFixed32(raw, static_cast<uint32_t>(docs_.size()));
  raw.append(docs_);

  std::string out(kBlockHeaderBytes, '\0');
  const int bound = LZ4_compressBound(static_cast<int>(raw.size()));
  out.resize(kBlockHeaderBytes + static_cast<size_t>(bound));
  const int compressed = LZ4_compress_default(raw.data(), out.data() + kBlockHeaderBytes,
                                              static_cast<int>(raw.size()), bound);
  uint8_t flags = 0;
  if (compressed > 0 && static_cast<size_t>(compressed) < raw.size() - raw.size() / 8) {
    flags = kFlagCompressed;
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
}

Status ParseBlockHeader(const char* data, size_t size, BlockHeader* header) {
  if (size < kBlockHeaderBytes) return Status::Corruption("block header truncated");
  if (DecodeFixed32(data) != kBlockMagic) return Status::Corruption("bad block magic");
  header->compressed = (static_cast<uint8_t>(data[4]) & kFlagCompressed) != 0;
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

Status DecodeBlock(const char* data, size_t size, std::string* scratch, std::string_view* raw) {
  BlockHeader header;
  if (Status s = ParseBlockHeader(data, size, &header); !s.ok()) return s;
  if (size < header.total_bytes()) return Status::Corruption("block truncated");
  const char* payload = data + kBlockHeaderBytes;
  const uint64_t sum = Checksum64(data, 16) ^ Checksum64(payload, header.stored_len);
  if (sum != header.checksum) return Status::Corruption("block checksum mismatch");
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

Status DocFromRawBlock(std::string_view raw, uint16_t index, uint64_t expected_id,
                       std::string* doc) {
  // raw = count, count + 1 offsets into the docs area, the docs area.
  if (raw.size() < 8) return Status::Corruption("block payload truncated");
  const uint32_t count = DecodeFixed32(raw.data());
  const size_t table_bytes = 4 * (static_cast<size_t>(count) + 2);
  if (table_bytes > raw.size()) return Status::Corruption("block offset table truncated");
  if (index >= count) return Status::Corruption("document index out of range");
  const std::string_view docs = raw.substr(table_bytes);
  const uint32_t start = DecodeFixed32(raw.data() + 4 * (1 + index));
  const uint32_t end = DecodeFixed32(raw.data() + 4 * (2 + index));
  if (start > end || end > docs.size() || end - start < 8) {
    return Status::Corruption("block offset table damaged");
  }
  if (DecodeFixed64(docs.data() + start) != expected_id) {
    return Status::Corruption("block holds another document at this address");
  }
  doc->assign(docs.data() + start + 8, end - start - 8);
  return Status::Ok();
}

}  // namespace railyard::storage
