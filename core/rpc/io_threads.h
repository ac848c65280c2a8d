// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <memory>

namespace asio {
class io_context;
}  // namespace asio

namespace railyard::rpc {

// I/O threads that many Clients share (ClientOptions::io) instead of each running threads of its
// own: a program that talks to many servers through a Client each, such as a console polling 144
// nodes' admin services, then runs a couple of threads rather than one per Client. A Client on
// them stops without stopping them: its Stop waits until nothing of its own is left on them.
//
// Every Client on them runs its callbacks on these threads: a callback that blocks holds up the
// others' I/O.
//
// Thread safety: context() from any thread. Destroy it after every Client that uses it (the
// Clients hold it by shared_ptr, so by default it goes with the last of them), and never on one
// of its own threads.
class IoThreads {
 public:
  // At least one thread.
  explicit IoThreads(size_t threads);
  ~IoThreads();  // Stops the context and joins the threads.
  IoThreads(const IoThreads&) = delete;
  IoThreads& operator=(const IoThreads&) = delete;

  asio::io_context& context();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace railyard::rpc
