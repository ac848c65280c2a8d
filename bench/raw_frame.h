// SPDX-License-Identifier: Apache-2.0
#pragma once

// The raw systems' frame (bench/raw_echo.cc on asio, bench/raw_uring_echo.cc on io_uring): a 4-byte
// big-endian length, then the payload. One definition, so the two measure the same bytes.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace railyard::bench::raw_frame {

inline constexpr size_t kHeaderBytes = 4;
// Big enough for any frame this benchmark sends (64-byte payloads) plus a few more in flight.
inline constexpr size_t kReadBufferBytes = 4096;

inline uint32_t DecodeLength(const unsigned char* header) {
  return (uint32_t{header[0]} << 24) | (uint32_t{header[1]} << 16) | (uint32_t{header[2]} << 8) |
         uint32_t{header[3]};
}

// Bytes of the first whole frame at the start of `data`, or 0 while it is incomplete.
inline size_t WholeFrameBytes(const unsigned char* data, size_t size) {
  if (size < kHeaderBytes) return 0;
  const size_t frame = kHeaderBytes + DecodeLength(data);
  return size >= frame ? frame : 0;
}

// `payload` as one frame.
inline std::string Encode(const std::string& payload) {
  std::string frame(kHeaderBytes + payload.size(), '\0');
  const auto length = static_cast<uint32_t>(payload.size());
  for (size_t i = 0; i < kHeaderBytes; ++i) {
    frame[i] = static_cast<char>(length >> (8 * (kHeaderBytes - 1 - i)));
  }
  std::memcpy(frame.data() + kHeaderBytes, payload.data(), payload.size());
  return frame;
}

}  // namespace railyard::bench::raw_frame
