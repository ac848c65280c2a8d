// SPDX-License-Identifier: Apache-2.0
// Frame decoding as the server and client see it: a 4-byte length checked against the limit,
// then the protobuf body; a hello read as the handshake reads it, its credentials judged as a
// docservice with data tokens judges them (node::DataAccess), and a request's method authorized
// for the principal they gave.
#include <algorithm>
#include <limits>
#include <string>
#include <string_view>

#include "core/node/data_access.h"
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
  // Every input's hello comes from one peer: without a lockout that never comes, the throttle
  // would soon refuse every token, and the checks below judge tokens, not the throttle.
  static railyard::node::DataAccess access = [] {
    railyard::node::DataAccessOptions options;
    options.reader_tokens = {"fuzz-reader-token"};
    options.writer_tokens = {"fuzz-writer-token"};
    options.throttle.free_failures = std::numeric_limits<int>::max();
    return railyard::node::DataAccess(std::move(options));
  }();
  // A call by `principal`: answered or refused as UNAUTHENTICATED, nothing else.
  auto allowed = [](const std::string& principal, std::string_view method) {
    CallContext call;
    call.method = method;
    call.principal = principal;
    const Status s = access.Authorize(call);
    if (!s.ok() && s.code() != Code::kUnauthenticated) __builtin_trap();
    return s.ok();
  };
  if (frame.has_hello()) {
    // What the server takes from a hello.
    (void)frame.hello().protocol_version();
    const std::string principal = access.PrincipalOf(
        {frame.hello().client_name(), "127.0.0.1:1", frame.hello().credentials()});
    const bool writer = frame.hello().credentials() == "fuzz-writer-token";
    const bool reader = frame.hello().credentials() == "fuzz-reader-token";
    if (allowed(principal, "doc.Put") != writer) __builtin_trap();
    if (allowed(principal, "doc.Get") != (writer || reader)) __builtin_trap();
    (void)allowed(principal, frame.hello().client_name());
  }
  if (frame.has_request()) {
    // An anonymous caller reaches repl.Fetch (its own token) and nothing else.
    if (allowed("", frame.request().method()) != (frame.request().method() == "repl.Fetch")) {
      __builtin_trap();
    }
  }
  std::string again;
  AppendEncodedFrame(frame, again);  // Whatever parsed must encode again.
  return 0;
}
