// SPDX-License-Identifier: Apache-2.0
// Frame decoding as the server and client see it: a 4-byte length checked against the limit,
// then the protobuf body; a hello read as the handshake reads it.
#include <algorithm>

#include "core/rpc/frame.h"
#include "railyard/rpc.pb.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace railyard::rpc;
  if (size < kFrameHeaderBytes) return 0;
  const uint32_t length = DecodeFrameLength(data);
  if (!CheckFrameLength(length, 1 << 20).ok()) return 0;
  const size_t body = std::min<size_t>(length, size - kFrameHeaderBytes);
  Frame frame;
  if (!ParseFrameBody(reinterpret_cast<const char*>(data) + kFrameHeaderBytes, body, frame).ok()) {
    return 0;
  }
  if (frame.has_hello()) {
    // What the server takes from a hello.
    (void)frame.hello().protocol_version();
    (void)frame.hello().client_name().size();
  }
  std::string again;
  AppendEncodedFrame(frame, again);  // Whatever parsed must encode again.
  return 0;
}
