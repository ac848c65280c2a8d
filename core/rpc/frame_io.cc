#include "core/rpc/frame_io.h"

namespace railyard::rpc::internal {

namespace {

// A peer that closes between frames: EOF on plain TCP; over TLS also a close without
// close_notify, which is how a TLS peer that simply goes away looks.
bool IsCleanClose(const asio::error_code& ec) {
  return ec == asio::error::eof || ec == asio::ssl::error::stream_truncated;
}

}  // namespace

template <typename Stream>
asio::awaitable<Status> ReadFrame(Stream& stream, FrameReadBuffers& buffers,
                                  uint32_t max_frame_bytes, Frame& frame,
                                  const std::function<void()>& on_header) {
  using asio::redirect_error;
  using asio::use_awaitable;
  asio::error_code ec;
  const size_t got = co_await asio::async_read(stream, asio::buffer(buffers.header),
                                               redirect_error(use_awaitable, ec));
  if (ec) {
    if (got == 0)
      co_return Status{Code::kUnavailable, IsCleanClose(ec) ? std::string() : ec.message()};
    co_return Status{Code::kProtocolError, "truncated frame header (" + std::to_string(got) +
                                               " of 4 bytes, then " + ec.message() + ")"};
  }
  const uint32_t length = DecodeFrameLength(buffers.header.data());
  if (Status s = CheckFrameLength(length, max_frame_bytes); !s.ok()) co_return s;
  if (on_header) on_header();
  buffers.body.resize(length);
  const size_t body_got = co_await asio::async_read(stream, asio::buffer(buffers.body),
                                                    redirect_error(use_awaitable, ec));
  if (ec) {
    co_return Status{Code::kProtocolError, "truncated frame (" + std::to_string(body_got) + " of " +
                                               std::to_string(length) + " body bytes, then " +
                                               ec.message() + ")"};
  }
  co_return ParseFrameBody(buffers.body.data(), buffers.body.size(), frame);
}

template asio::awaitable<Status> ReadFrame(asio::ip::tcp::socket&, FrameReadBuffers&, uint32_t,
                                           Frame&, const std::function<void()>&);
template asio::awaitable<Status> ReadFrame(asio::ssl::stream<asio::ip::tcp::socket>&,
                                           FrameReadBuffers&, uint32_t, Frame&,
                                           const std::function<void()>&);

}  // namespace railyard::rpc::internal
