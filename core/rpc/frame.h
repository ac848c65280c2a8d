// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/rpc/frame_limits.h"
#include "core/rpc/status.h"

namespace railyard::rpc {

namespace wire {
class Frame;
}  // namespace wire
using wire::Frame;

// Wire framing: a 4-byte big-endian body length, then the serialized railyard.rpc.Frame.
inline constexpr size_t kFrameHeaderBytes = 4;
inline constexpr uint32_t kProtocolVersion = 1;

// Reads the body length from a header. REQUIRES: header points at kFrameHeaderBytes bytes.
uint32_t DecodeFrameLength(const unsigned char* header);

// Whether the first bytes a peer sent are HTTP rather than a Boxcar frame: a request ("GET ",
// "POST", "HEAD", "PUT "), a response ("HTTP"), or an HTML error page ("<!DO", "<htm", "<HTM")
// that some servers send to what they cannot parse. A Boxcar frame's length never starts so (it
// would be over 1 GB). For the error that names the mistake: a metrics port, a web server.
bool LooksLikeHttp(const unsigned char* header);

// Rejects a body length before anything is allocated for it.
Status CheckFrameLength(uint32_t body_bytes, uint32_t max_frame_bytes);

// Appends header + body of `frame` to `out`.
void AppendEncodedFrame(const Frame& frame, std::string& out);
std::string EncodeFrame(const Frame& frame);

// Parses a body whose length already passed CheckFrameLength into `out`, replacing what it held
// (a request or response in `out` is reused for a body of the same kind, so reading a stream of
// them into one Frame allocates no messages). An empty frame (no body set) is malformed: every
// legal frame carries exactly one body.
Status ParseFrameBody(const char* data, size_t size, Frame& out);

}  // namespace railyard::rpc
