// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/frame_io.h"

#include <algorithm>
#include <cstring>

namespace railyard::rpc::internal {

namespace {

// A peer that closes between frames: EOF on plain TCP; over TLS also a close without
// close_notify, which is how a TLS peer that simply goes away looks.
bool IsCleanClose(const asio::error_code& ec) {
  return ec == asio::error::eof || ec == asio::ssl::error::stream_truncated;
}

}  // namespace

void FrameReadBuffers::Consume(size_t bytes) {
  begin_ += bytes;
  if (begin_ < end_) return;
  begin_ = end_ = 0;
  // A large frame's storage is not kept for the connection's life.
  if (capacity_ > kKeptBytes) {
    storage_.reset();
    capacity_ = 0;
  }
}

void FrameReadBuffers::Reserve(size_t bytes) {
  if (capacity_ - end_ >= bytes) return;
  const size_t held = end_ - begin_;
  if (capacity_ >= held + bytes && begin_ > 0) {  // Room enough once moved to the front.
    std::memmove(storage_.get(), storage_.get() + begin_, held);
  } else {
    const size_t capacity = std::max({kInitialBytes, held + bytes, capacity_ * 2});
    auto grown = std::make_unique_for_overwrite<char[]>(capacity);
    if (held > 0) std::memcpy(grown.get(), storage_.get() + begin_, held);
    storage_ = std::move(grown);
    capacity_ = capacity;
  }
  begin_ = 0;
  end_ = held;
}

template <typename Stream>
asio::awaitable<Status> ReadFrame(Stream& stream, FrameReadBuffers& buffers,
                                  uint32_t max_frame_bytes, Frame& frame,
                                  const std::function<void()>& on_header) {
  using asio::redirect_error;
  using asio::use_awaitable;
  asio::error_code ec;
  buffers.header.fill(0);
  while (buffers.buffered() < kFrameHeaderBytes) {
    // At least a whole small frame's room, so header and body usually come in one read.
    buffers.Reserve(FrameReadBuffers::kInitialBytes / 2);
    const size_t got =
        co_await stream.async_read_some(asio::buffer(buffers.free_begin(), buffers.free_bytes()),
                                        redirect_error(use_awaitable, ec));
    buffers.Commit(got);
    std::memcpy(buffers.header.data(), buffers.data(),
                std::min(buffers.buffered(), kFrameHeaderBytes));
    if (ec && buffers.buffered() < kFrameHeaderBytes) {
      if (buffers.buffered() == 0)
        co_return Status{Code::kUnavailable, IsCleanClose(ec) ? std::string() : ec.message()};
      co_return Status{Code::kProtocolError, "truncated frame header (" +
                                                 std::to_string(buffers.buffered()) +
                                                 " of 4 bytes, then " + ec.message() + ")"};
    }
  }
  std::memcpy(buffers.header.data(), buffers.data(), kFrameHeaderBytes);
  const uint32_t length = DecodeFrameLength(buffers.header.data());
  if (Status s = CheckFrameLength(length, max_frame_bytes); !s.ok()) co_return s;
  if (on_header) on_header();
  const size_t frame_bytes = kFrameHeaderBytes + size_t{length};
  while (buffers.buffered() < frame_bytes) {
    buffers.Reserve(frame_bytes - buffers.buffered());
    const size_t got =
        co_await stream.async_read_some(asio::buffer(buffers.free_begin(), buffers.free_bytes()),
                                        redirect_error(use_awaitable, ec));
    buffers.Commit(got);
    if (ec && buffers.buffered() < frame_bytes) {
      co_return Status{Code::kProtocolError,
                       "truncated frame (" +
                           std::to_string(buffers.buffered() - kFrameHeaderBytes) + " of " +
                           std::to_string(length) + " body bytes, then " + ec.message() + ")"};
    }
  }
  const Status parsed = ParseFrameBody(buffers.data() + kFrameHeaderBytes, length, frame);
  buffers.Consume(frame_bytes);
  co_return parsed;
}

template asio::awaitable<Status> ReadFrame(asio::ip::tcp::socket&, FrameReadBuffers&, uint32_t,
                                           Frame&, const std::function<void()>&);
template asio::awaitable<Status> ReadFrame(UringStream&, FrameReadBuffers&, uint32_t, Frame&,
                                           const std::function<void()>&);
template asio::awaitable<Status> ReadFrame(asio::ssl::stream<asio::ip::tcp::socket>&,
                                           FrameReadBuffers&, uint32_t, Frame&,
                                           const std::function<void()>&);

}  // namespace railyard::rpc::internal
