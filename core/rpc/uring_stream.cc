// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/uring_stream.h"

namespace railyard::rpc::internal {

void UringStream::Close() {
  if (!socket_.is_open()) return;
  asio::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  // Out of asio's hands without closing: the number stays taken until the ring's next submit.
  asio::error_code ec;
  const int fd = socket_.release(ec);
  if (ec) {
    socket_.close(ignored);
    return;
  }
  ring_->CloseAfterQueued(fd);
}

}  // namespace railyard::rpc::internal
