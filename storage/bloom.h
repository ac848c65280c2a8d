// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: a Bloom filter split into fixed-size pages, one page per key, so a lookup
// touches exactly one page and a page can be resident in memory or not on its own
// (format in docs/formats.md).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "storage/file.h"

namespace railyard::storage {

struct BloomShape {
  uint32_t page_bytes = 4096;  // A power of two.
  uint32_t page_count = 1;
  uint32_t probes = 6;
};

// Bits per key and probes for a false-positive rate, sized up slightly because keys spread over
// pages unevenly.
BloomShape ShapeFor(uint64_t keys, double false_positive_rate, uint32_t page_bytes);
uint32_t BloomPageOf(const BloomShape& shape, uint64_t id);
bool PageMayContain(const BloomShape& shape, const uint8_t* page, uint64_t id);

// Builds a filter in memory and writes it to its file.
class BloomBuilder {
 public:
  explicit BloomBuilder(BloomShape shape);
  void Add(uint64_t id);
  const BloomShape& shape() const { return shape_; }
  const uint8_t* page(uint32_t p) const { return bits_.data() + size_t{p} * shape_.page_bytes; }
  Status WriteTo(Env* env, const std::string& path) const;

 private:
  BloomShape shape_;
  std::vector<uint8_t> bits_;
};

// A filter file on disk, read a page at a time. Thread-safe.
class BloomFile {
 public:
  static Status Open(Env* env, const std::string& path, std::shared_ptr<BloomFile>* out);
  const BloomShape& shape() const { return shape_; }
  uint64_t bytes() const { return uint64_t{shape_.page_bytes} * shape_.page_count; }
  // Reads and verifies one page.
  Status ReadPage(uint32_t page, std::vector<uint8_t>* bits) const;
  const std::string& path() const { return file_.path(); }

 private:
  File file_;
  BloomShape shape_;
  std::vector<uint64_t> checksums_;
};

}  // namespace railyard::storage
