// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/frame.h"

#include <google/protobuf/io/coded_stream.h>

#include <string_view>

#include "railyard/rpc.pb.h"

namespace railyard::rpc {

uint32_t DecodeFrameLength(const unsigned char* header) {
  return (uint32_t{header[0]} << 24) | (uint32_t{header[1]} << 16) | (uint32_t{header[2]} << 8) |
         uint32_t{header[3]};
}

Status CheckFrameLength(uint32_t body_bytes, uint32_t max_frame_bytes) {
  if (body_bytes > max_frame_bytes) {
    return {Code::kProtocolError, "frame of " + std::to_string(body_bytes) +
                                      " bytes exceeds the limit of " +
                                      std::to_string(max_frame_bytes) + " bytes"};
  }
  return Status::Ok();
}

bool LooksLikeHttp(const unsigned char* header) {
  static constexpr std::string_view kStarts[] = {"GET ", "POST", "HEAD", "PUT ",
                                                 "HTTP", "<!DO", "<htm", "<HTM"};
  const std::string_view first(reinterpret_cast<const char*>(header), kFrameHeaderBytes);
  for (std::string_view start : kStarts) {
    if (first == start) return true;
  }
  return false;
}

void AppendEncodedFrame(const Frame& frame, std::string& out) {
  const size_t body = frame.ByteSizeLong();
  const size_t start = out.size();
  out.resize(start + kFrameHeaderBytes + body);
  auto* p = reinterpret_cast<unsigned char*>(out.data() + start);
  p[0] = static_cast<unsigned char>(body >> 24);
  p[1] = static_cast<unsigned char>(body >> 16);
  p[2] = static_cast<unsigned char>(body >> 8);
  p[3] = static_cast<unsigned char>(body);
  frame.SerializeWithCachedSizesToArray(p + kFrameHeaderBytes);
}

std::string EncodeFrame(const Frame& frame) {
  std::string out;
  AppendEncodedFrame(frame, out);
  return out;
}

namespace {

// Whether the body starts with `field` of Frame (length-delimited, as every body is).
bool StartsWithField(const char* data, size_t size, int field) {
  return size > 0 && static_cast<unsigned char>(data[0]) == ((field << 3) | 2);
}

// Clears `out` but keeps its request or response, emptied, when the next body is one too, so
// that parsing fills their existing storage instead of freeing and allocating them. Returns
// whether it kept one (then the body must be merged, not parsed: parsing would clear it again).
bool ClearKeepingBody(const char* data, size_t size, Frame& out) {
  if (out.has_request() && StartsWithField(data, size, Frame::kRequestFieldNumber)) {
    wire::Request* kept = out.release_request();
    out.Clear();
    kept->Clear();
    out.set_allocated_request(kept);
    return true;
  }
  if (out.has_response() && StartsWithField(data, size, Frame::kResponseFieldNumber)) {
    wire::Response* kept = out.release_response();
    out.Clear();
    kept->Clear();
    out.set_allocated_response(kept);
    return true;
  }
  return false;
}

}  // namespace

Status ParseFrameBody(const char* data, size_t size, Frame& out) {
  bool parsed;
  if (ClearKeepingBody(data, size, out)) {
    // The body starts with the kept field, so the result is what parsing would give: every other
    // field of `out` is clear and the first field sets the same oneof member.
    google::protobuf::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(data),
                                                 static_cast<int>(size));
    parsed = out.MergeFromCodedStream(&input) && input.ConsumedEntireMessage();
  } else {
    parsed = out.ParseFromArray(data, static_cast<int>(size));
  }
  if (!parsed) {
    return {Code::kProtocolError, "malformed frame body (" + std::to_string(size) + " bytes)"};
  }
  if (out.body_case() == wire::Frame::BODY_NOT_SET) {
    return {Code::kProtocolError, "frame carries no message"};
  }
  return Status::Ok();
}

}  // namespace railyard::rpc
