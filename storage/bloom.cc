// SPDX-License-Identifier: Apache-2.0
#include "storage/bloom.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "storage/coding.h"
#include "storage/hash.h"

namespace railyard::storage {

namespace {

constexpr uint64_t kBloomMagic = 0x314d4f4f4c425952ull;  // "RYBLOOM1"
constexpr size_t kBloomFooterBytes = 32;
constexpr uint32_t kMaxBloomPageBytes = 1u << 20;
constexpr uint32_t kMaxBloomProbes = 64;

// Two independent 32-bit hashes for double hashing within a page.
inline void ProbeHashes(uint64_t id, uint32_t* h1, uint32_t* h2) {
  const uint64_t h = MixId(id ^ 0x9e3779b97f4a7c15ull);
  *h1 = static_cast<uint32_t>(h);
  *h2 = static_cast<uint32_t>(h >> 32) | 1;
}

}  // namespace

BloomShape ShapeFor(uint64_t keys, double false_positive_rate, uint32_t page_bytes) {
  BloomShape shape;
  shape.page_bytes = std::bit_ceil(std::max<uint32_t>(64, page_bytes));
  const double ln2 = std::log(2.0);
  // Optimal bits per key for a flat filter, plus 5% for the uneven spread of keys over pages.
  const double bits_per_key = -std::log(false_positive_rate) / (ln2 * ln2) * 1.05;
  const double bits = std::max<double>(1.0, static_cast<double>(keys) * bits_per_key);
  shape.page_count =
      static_cast<uint32_t>(std::max<double>(1.0, std::ceil(bits / (8.0 * shape.page_bytes))));
  shape.probes = static_cast<uint32_t>(std::clamp(std::lround(bits_per_key * ln2 / 1.05), 1l, 16l));
  return shape;
}

uint32_t BloomPageOf(const BloomShape& shape, uint64_t id) {
  const uint64_t h = MixId(id);
  return static_cast<uint32_t>(((h >> 32) * shape.page_count) >> 32);
}

bool PageMayContain(const BloomShape& shape, const uint8_t* page, uint64_t id) {
  uint32_t h1, h2;
  ProbeHashes(id, &h1, &h2);
  const uint32_t mask = shape.page_bytes * 8 - 1;
  for (uint32_t i = 0; i < shape.probes; ++i) {
    const uint32_t bit = (h1 + i * h2) & mask;
    if ((page[bit >> 3] & (1u << (bit & 7))) == 0) return false;
  }
  return true;
}

BloomBuilder::BloomBuilder(BloomShape shape)
    : shape_(shape), bits_(size_t{shape.page_bytes} * shape.page_count, 0) {}

void BloomBuilder::Add(uint64_t id) {
  uint8_t* page = bits_.data() + size_t{BloomPageOf(shape_, id)} * shape_.page_bytes;
  uint32_t h1, h2;
  ProbeHashes(id, &h1, &h2);
  const uint32_t mask = shape_.page_bytes * 8 - 1;
  for (uint32_t i = 0; i < shape_.probes; ++i) {
    const uint32_t bit = (h1 + i * h2) & mask;
    page[bit >> 3] |= static_cast<uint8_t>(1u << (bit & 7));
  }
}

Status BloomBuilder::WriteTo(Env* env, const std::string& path) const {
  std::string tail;
  for (uint32_t p = 0; p < shape_.page_count; ++p) {
    PutFixed64(tail, Checksum64(page(p), shape_.page_bytes));
  }
  const size_t footer_at = tail.size();
  PutFixed64(tail, kBloomMagic);
  PutFixed32(tail, shape_.page_bytes);
  PutFixed32(tail, shape_.page_count);
  PutFixed32(tail, shape_.probes);
  PutFixed32(tail, 0);
  PutFixed64(tail, Checksum64(tail.data() + footer_at, kBloomFooterBytes - 8));
  File file;
  Status s = File::Open(env, path, File::Mode::kReadWrite, true, &file);
  if (s.ok()) s = file.Truncate(0);
  if (s.ok())
    s = file.Append(std::string_view(reinterpret_cast<const char*>(bits_.data()), bits_.size()));
  if (s.ok()) s = file.Append(tail);
  if (s.ok()) s = file.Sync();
  return s;
}

Status BloomFile::Open(Env* env, const std::string& path, std::shared_ptr<BloomFile>* out) {
  auto bloom = std::make_shared<BloomFile>();
  if (Status s = File::Open(env, path, File::Mode::kRead, false, &bloom->file_); !s.ok()) return s;
  uint64_t size = 0;
  if (Status s = bloom->file_.Size(&size); !s.ok()) return s;
  if (size < kBloomFooterBytes) return Status::Corruption(path + ": too short for a Bloom filter");
  char footer[kBloomFooterBytes];
  size_t got = 0;
  if (Status s = bloom->file_.ReadAt(size - kBloomFooterBytes, kBloomFooterBytes, footer, &got);
      !s.ok()) {
    return s;
  }
  if (got != kBloomFooterBytes || DecodeFixed64(footer) != kBloomMagic ||
      Checksum64(footer, kBloomFooterBytes - 8) != DecodeFixed64(footer + kBloomFooterBytes - 8)) {
    return Status::Corruption(path + ": Bloom filter footer damaged");
  }
  BloomShape& shape = bloom->shape_;
  shape.page_bytes = DecodeFixed32(footer + 8);
  shape.page_count = DecodeFixed32(footer + 12);
  shape.probes = DecodeFixed32(footer + 16);
  const uint64_t pages_bytes = uint64_t{shape.page_bytes} * shape.page_count;
  // Bounds as well as consistency: a footer with a valid checksum can still come from a hostile
  // writer, and the probe loop and page buffers trust these numbers.
  if (!std::has_single_bit(shape.page_bytes) || shape.page_bytes > kMaxBloomPageBytes ||
      shape.page_count == 0 || shape.probes == 0 || shape.probes > kMaxBloomProbes ||
      pages_bytes + 8ull * shape.page_count + kBloomFooterBytes != size) {
    return Status::Corruption(path + ": Bloom filter layout does not match its size");
  }
  std::string sums(8ull * shape.page_count, '\0');
  if (Status s = bloom->file_.ReadAt(pages_bytes, sums.size(), sums.data(), &got); !s.ok())
    return s;
  bloom->checksums_.resize(shape.page_count);
  for (uint32_t p = 0; p < shape.page_count; ++p)
    bloom->checksums_[p] = DecodeFixed64(sums.data() + 8 * p);
  *out = std::move(bloom);
  return Status::Ok();
}

Status BloomFile::ReadPage(uint32_t page, std::vector<uint8_t>* bits) const {
  if (page >= shape_.page_count) {
    return Status::InvalidArgument(path() + ": no Bloom page " + std::to_string(page));
  }
  bits->resize(shape_.page_bytes);
  size_t got = 0;
  if (Status s = file_.ReadAt(uint64_t{page} * shape_.page_bytes, shape_.page_bytes,
                              reinterpret_cast<char*>(bits->data()), &got);
      !s.ok()) {
    return s;
  }
  if (got != shape_.page_bytes || Checksum64(bits->data(), got) != checksums_[page]) {
    return Status::Corruption(path() + ": Bloom page " + std::to_string(page) + " damaged");
  }
  return Status::Ok();
}

}  // namespace railyard::storage
