// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to core/rpc: one connection's frames on their way out.

#include <cstddef>
#include <string>

#include "core/rpc/frame.h"

namespace railyard::rpc::internal {

// The frames a connection has queued and the batch it is writing. Frames queued while a write is
// under way go out together in the next one (one write for a response and a pushed state change,
// or a ping and a request), and both buffers keep their storage, so queueing a frame allocates
// nothing once the connection has warmed up. A buffer grown past kKeptBytes by a large frame is
// released once written.
//
// Thread safety: none; the connection's strand.
class FrameOutbox {
 public:
  static constexpr size_t kKeptBytes = 64 * 1024;

  // Appends `frame`, length-prefixed, to the queued bytes.
  void Append(const Frame& frame) { AppendEncodedFrame(frame, queued_); }
  // If no batch is being written and frames are queued, makes them the batch and returns its
  // bytes (valid until FinishBatch); otherwise null.
  const std::string* StartBatch();
  // The batch was written, or failed.
  void FinishBatch();
  // Nothing queued and nothing being written.
  bool empty() const { return !writing_ && queued_.empty(); }

 private:
  std::string queued_;
  std::string batch_;
  bool writing_ = false;
};

}  // namespace railyard::rpc::internal
