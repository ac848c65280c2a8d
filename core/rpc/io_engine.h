// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string_view>

namespace railyard::rpc {

// How a Boxcar server's or client's plain TCP connections do their I/O (ServerOptions::io_engine,
// ClientOptions::io_engine). TLS connections always use epoll. docs/architecture.md, "Boxcar's I/O
// engines".
enum class IoEngine {
  // RAILYARD_RPC_IO from the environment ("epoll" or "io_uring") where it is set, else kIoUring
  // (which falls back to epoll where the kernel refuses it).
  kAuto,
  kEpoll,  // asio's reactor: a system call or two per read and per write.
  // One io_uring per I/O context: a turn of the loop hands all its reads and writes to the kernel
  // in one system call. Where the kernel refuses io_uring (disabled by sysctl or a seccomp
  // filter, or too old), epoll, and the log says why. The kernel finishes a receive on the I/O
  // thread that submitted it, flagged like a signal, so a blocking system call with a timeout
  // made on an I/O thread (in a callback or an inline handler, which must not block anyway) can
  // fail with EINTR; the program's other threads are never flagged.
  kIoUring,
};

// "auto", "epoll", "io_uring".
std::string_view IoEngineName(IoEngine engine);
// The inverse of IoEngineName; nullopt for anything else.
std::optional<IoEngine> ParseIoEngine(std::string_view text);

}  // namespace railyard::rpc
