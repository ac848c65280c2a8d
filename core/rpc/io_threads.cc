// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/io_threads.h"

#include <algorithm>
#include <asio.hpp>
#include <optional>
#include <thread>
#include <vector>

#include "core/rpc/uring_service.h"

namespace railyard::rpc {

struct IoThreads::Impl {
  asio::io_context io;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  std::vector<std::thread> threads;
};

IoThreads::IoThreads(size_t threads) : impl_(std::make_unique<Impl>()) {
  impl_->work.emplace(asio::make_work_guard(impl_->io));
  for (size_t i = 0; i < std::max<size_t>(1, threads); ++i) {
    impl_->threads.emplace_back([&io = impl_->io] {
      internal::MarkBoxcarIoThread();
      io.run();
    });
  }
}

IoThreads::~IoThreads() {
  // The Clients have stopped, and each waited for its own work to end: nothing of theirs is left.
  impl_->work.reset();
  impl_->io.stop();
  for (auto& t : impl_->threads) t.join();
}

asio::io_context& IoThreads::context() { return impl_->io; }

}  // namespace railyard::rpc
