#pragma once

// Internal to core/rpc: reading whole frames from a socket inside a coroutine.

#include <array>
#include <asio.hpp>
#include <asio/ssl.hpp>
#include <functional>
#include <string>

#include "core/rpc/frame.h"
#include "railyard/rpc.pb.h"

namespace railyard::rpc::internal {

// Reusable buffers for one connection's reads.
struct FrameReadBuffers {
  std::array<unsigned char, kFrameHeaderBytes> header{};
  std::string body;
};

// Reads one frame. Returns OK, or UNAVAILABLE with an empty message when the peer closed cleanly
// between frames, or UNAVAILABLE/PROTOCOL_ERROR saying what went wrong. The length is checked
// against `max_frame_bytes` before the body is allocated. `on_header`, if set, runs once the
// header has arrived (the server starts its frame-completion timer there).
// Stream: asio::ip::tcp::socket or asio::ssl::stream of one (instantiated in frame_io.cc).
template <typename Stream>
asio::awaitable<Status> ReadFrame(Stream& stream, FrameReadBuffers& buffers,
                                  uint32_t max_frame_bytes, Frame& frame,
                                  const std::function<void()>& on_header = {});

extern template asio::awaitable<Status> ReadFrame(asio::ip::tcp::socket&, FrameReadBuffers&,
                                                  uint32_t, Frame&, const std::function<void()>&);
extern template asio::awaitable<Status> ReadFrame(asio::ssl::stream<asio::ip::tcp::socket>&,
                                                  FrameReadBuffers&, uint32_t, Frame&,
                                                  const std::function<void()>&);

}  // namespace railyard::rpc::internal
