// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: fixed-width little-endian encoding, the byte order of every on-disk format.

#include <cstdint>
#include <cstring>
#include <string>

#include <xxhash.h>

namespace railyard::storage {

inline void PutFixed16(std::string& out, uint16_t v) {
  const char b[2] = {static_cast<char>(v), static_cast<char>(v >> 8)};
  out.append(b, 2);
}
inline void PutFixed32(std::string& out, uint32_t v) {
  char b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<char>(v >> (8 * i));
  out.append(b, 4);
}
inline void PutFixed64(std::string& out, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(v >> (8 * i));
  out.append(b, 8);
}
inline void EncodeFixed32(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>(v >> (8 * i));
}
inline void EncodeFixed64(char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>(v >> (8 * i));
}
inline uint16_t DecodeFixed16(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint16_t>(u[0] | (u[1] << 8));
}
inline uint32_t DecodeFixed32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);  // x86-64 and aarch64 are little-endian; the formats are too.
  return v;
}
inline uint64_t DecodeFixed64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline uint64_t Checksum64(const void* data, size_t size) { return XXH3_64bits(data, size); }
inline uint32_t Checksum32(const void* data, size_t size) {
  return static_cast<uint32_t>(XXH3_64bits(data, size));
}

}  // namespace railyard::storage
