// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "bench/closed_loop.h"
#include "core/rpc/io_engine.h"
#include "core/rpc/status.h"

namespace railyard::bench {

// Failed calls an echo system logs before it goes quiet (the first few say what went wrong).
inline constexpr int kEchoFailuresToLog = 5;

// Both systems give each call the same deadline, so both pay for a deadline timer.
inline constexpr std::chrono::milliseconds kCallTimeout{5000};

// One RPC system under test in rpc_bench: an echo server and a client of it on loopback, in this
// process, driven by a ClosedLoop.
//
// Thread safety: Start, Stop and Describe from one thread; Echo from any thread, concurrently for
// distinct callers.
class EchoSystem {
 public:
  virtual ~EchoSystem() = default;

  // Starts the server on 127.0.0.1 with an OS-chosen port and a client ready for `concurrency`
  // callers (connected before it returns).
  virtual rpc::Status Start(size_t concurrency) = 0;
  // Sends `payload` (as given to the factory) for `caller` and calls loop.Done(caller, ok) exactly
  // once when the call ends; ok means an OK status and the payload echoed back unchanged.
  virtual void Echo(size_t caller) = 0;
  // Stops client and server. Calls still in flight end first, calling loop.Done as usual; once it
  // returns, the system calls nothing any more (gRPC: unless a call outlives its deadline).
  virtual void Stop() = 0;
  // How the system is set up and which threads it runs, for the diagnostics on stderr.
  virtual std::string Describe() const = 0;
};

// How the Boxcar client picks a connection: the default policy (balance's lowest slot, with
// flow control and telemetry) or the stateless LowestSlotFastPath.
enum class RailyardSelection { kDefault, kFastPath };

// `loop` must outlive the returned system. `client_threads`: the client's I/O threads (raw and
// Boxcar alike, so that raw stays the limit for the same shape; gRPC manages its own).
// `io_engine`: the server's and the client's (rpc::IoEngine; kAuto is the runtime's default).
std::unique_ptr<EchoSystem> MakeRailyardEcho(ClosedLoop& loop, std::string payload,
                                             RailyardSelection selection, size_t client_threads = 1,
                                             rpc::IoEngine io_engine = rpc::IoEngine::kAuto);
std::unique_ptr<EchoSystem> MakeGrpcEcho(ClosedLoop& loop, std::string payload);
// The physical limit: length-prefixed frames over plain asio, nothing else (bench/raw_echo.cc).
std::unique_ptr<EchoSystem> MakeRawEcho(ClosedLoop& loop, std::string payload,
                                        size_t client_threads = 1);

}  // namespace railyard::bench
