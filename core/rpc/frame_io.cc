#include "core/rpc/frame_io.h"

namespace railyard::rpc::internal {

asio::awaitable<Status> ReadFrame(asio::ip::tcp::socket& socket, FrameReadBuffers& buffers,
                                  uint32_t max_frame_bytes, Frame& frame) {
  using asio::redirect_error;
  using asio::use_awaitable;
  asio::error_code ec;
  const size_t got = co_await asio::async_read(socket, asio::buffer(buffers.header),
                                               redirect_error(use_awaitable, ec));
  if (ec) {
    if (got == 0) {
      co_return Status{Code::kUnavailable, ec == asio::error::eof ? std::string() : ec.message()};
    }
    co_return Status{Code::kProtocolError, "truncated frame header (" + std::to_string(got) +
                                               " of 4 bytes, then " + ec.message() + ")"};
  }
  const uint32_t length = DecodeFrameLength(buffers.header.data());
  if (Status s = CheckFrameLength(length, max_frame_bytes); !s.ok()) co_return s;
  buffers.body.resize(length);
  const size_t body_got = co_await asio::async_read(socket, asio::buffer(buffers.body),
                                                    redirect_error(use_awaitable, ec));
  if (ec) {
    co_return Status{Code::kProtocolError, "truncated frame (" + std::to_string(body_got) + " of " +
                                               std::to_string(length) + " body bytes, then " +
                                               ec.message() + ")"};
  }
  co_return ParseFrameBody(buffers.body.data(), buffers.body.size(), frame);
}

}  // namespace railyard::rpc::internal
