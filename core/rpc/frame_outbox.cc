// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/frame_outbox.h"

namespace railyard::rpc::internal {

const std::string* FrameOutbox::StartBatch() {
  if (writing_ || queued_.empty()) return nullptr;
  queued_.swap(batch_);
  writing_ = true;
  return &batch_;
}

void FrameOutbox::FinishBatch() {
  writing_ = false;
  if (batch_.capacity() > kKeptBytes) {
    std::string().swap(batch_);
  } else {
    batch_.clear();
  }
}

}  // namespace railyard::rpc::internal
