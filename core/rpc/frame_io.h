// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to core/rpc: reading whole frames from a socket inside a coroutine.

#include <array>
#include <asio.hpp>
#include <asio/ssl.hpp>
#include <functional>
#include <memory>
#include <string>

#include "core/rpc/frame.h"
#include "core/rpc/uring_stream.h"
#include "railyard/rpc.pb.h"

namespace railyard::rpc::internal {

// One connection's read buffer. Reads take whatever the socket has (up to the free space), so a
// frame usually costs one read system call, header and body together, and frames that arrived
// together are parsed from one read.
//
// Thread safety: none; one connection's reads, one at a time.
class FrameReadBuffers {
 public:
  // What the buffer starts at and how far it may stay grown: a larger frame grows it for as
  // long as it is being read, and it shrinks back once empty.
  static constexpr size_t kInitialBytes = 4096;
  static constexpr size_t kKeptBytes = 64 * 1024;

  // The first bytes of the latest frame's header (zeros where none arrived), so that a failed
  // read can still tell what the peer spoke (LooksLikeTlsRecord).
  std::array<unsigned char, kFrameHeaderBytes> header{};

  size_t buffered() const { return end_ - begin_; }
  const char* data() const { return storage_.get() + begin_; }
  // Drops `bytes` from the front. REQUIRES: bytes <= buffered().
  void Consume(size_t bytes);
  // Room for at least `bytes` more after the buffered ones (moving or growing the storage).
  void Reserve(size_t bytes);
  char* free_begin() { return storage_.get() + end_; }
  size_t free_bytes() const { return capacity_ - end_; }
  void Commit(size_t bytes) { end_ += bytes; }

 private:
  std::unique_ptr<char[]> storage_;
  size_t capacity_ = 0;
  size_t begin_ = 0;  // Buffered bytes: [begin_, end_).
  size_t end_ = 0;
};

// Reads one frame (from what is buffered, reading more only when it holds no whole frame).
// Returns OK, or UNAVAILABLE with an empty message when the peer closed cleanly between frames,
// or UNAVAILABLE/PROTOCOL_ERROR saying what went wrong. The length is checked against
// `max_frame_bytes` before room is made for the body. `on_header`, if set, runs once the header
// has arrived (the server starts its frame-completion timer there).
// Stream: asio::ip::tcp::socket, UringStream or asio::ssl::stream of a socket (instantiated in
// frame_io.cc).
template <typename Stream>
asio::awaitable<Status> ReadFrame(Stream& stream, FrameReadBuffers& buffers,
                                  uint32_t max_frame_bytes, Frame& frame,
                                  const std::function<void()>& on_header = {});

extern template asio::awaitable<Status> ReadFrame(asio::ip::tcp::socket&, FrameReadBuffers&,
                                                  uint32_t, Frame&, const std::function<void()>&);
extern template asio::awaitable<Status> ReadFrame(UringStream&, FrameReadBuffers&, uint32_t, Frame&,
                                                  const std::function<void()>&);
extern template asio::awaitable<Status> ReadFrame(asio::ssl::stream<asio::ip::tcp::socket>&,
                                                  FrameReadBuffers&, uint32_t, Frame&,
                                                  const std::function<void()>&);

}  // namespace railyard::rpc::internal
