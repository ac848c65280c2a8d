#include "core/rpc/frame.h"

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

Status ParseFrameBody(const char* data, size_t size, Frame& out) {
  if (!out.ParseFromArray(data, static_cast<int>(size))) {
    return {Code::kProtocolError, "malformed frame body (" + std::to_string(size) + " bytes)"};
  }
  if (out.body_case() == wire::Frame::BODY_NOT_SET) {
    return {Code::kProtocolError, "frame carries no message"};
  }
  return Status::Ok();
}

}  // namespace railyard::rpc
