#pragma once

// Internal to core/rpc: reading whole frames from a socket inside a coroutine.

#include <array>
#include <asio.hpp>
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
// against `max_frame_bytes` before the body is allocated.
asio::awaitable<Status> ReadFrame(asio::ip::tcp::socket& socket, FrameReadBuffers& buffers,
                                  uint32_t max_frame_bytes, Frame& frame);

}  // namespace railyard::rpc::internal
