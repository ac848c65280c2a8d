// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "bench/closed_loop.h"
#include "bench/echo_system.h"

namespace railyard::bench {

// raw's frames and connections (bench/raw_echo.cc) driven by io_uring instead of asio's epoll
// reactor (bench/raw_uring_echo.cc). Built only where liburing is installed: rpc_bench then
// defines RAILYARD_RPC_BENCH_HAS_URING. `loop` must outlive the returned system.
std::unique_ptr<EchoSystem> MakeRawUringEcho(ClosedLoop& loop, std::string payload,
                                             size_t client_threads = 1);

// Empty if this process can set up an io_uring; otherwise why not (the kernel's
// kernel.io_uring_disabled, a container's seccomp filter, a kernel without it), for a message.
std::string RawUringUnavailable();

}  // namespace railyard::bench
