// SPDX-License-Identifier: Apache-2.0
#pragma once

// Helpers for the rpc tests: real servers on 127.0.0.1 with OS-chosen ports, fast-converging
// client options, and a raw blocking connection for speaking (or breaking) the protocol by hand.

#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/rpc/client.h"
#include "core/rpc/frame.h"
#include "core/rpc/server.h"
#include "railyard/rpc.pb.h"
#include "tests/support/wait_until.h"

namespace railyard::rpc::testing {

inline constexpr char kEchoMethod[] = "test.Echo";
inline constexpr char kFailMethod[] = "test.Fail";
// A method name for suites that register their own handler.
inline constexpr char kWorkMethod[] = "test.Work";

using railyard::testing::WaitUntil;

// A started server with an echo method that takes `service_time` of work per request, and a
// method that always fails with an application error. `handled` counts handler runs.
struct TestServer {
  std::unique_ptr<Server> server;
  std::shared_ptr<std::atomic<uint64_t>> handled = std::make_shared<std::atomic<uint64_t>>(0);
};
TestServer StartTestServer(const std::string& name,
                           std::chrono::microseconds service_time = std::chrono::microseconds(0),
                           uint32_t max_frame_bytes = kDefaultMaxFrameBytes);

// Options that make a client converge within milliseconds rather than seconds.
ClientOptions FastClientOptions(std::vector<Endpoint> servers, size_t pool_size);

// Slots of `client`'s pool entries on server index `server`, ascending.
std::vector<uint32_t> PooledSlots(const Client& client, uint32_t server);

// A blocking connection to 127.0.0.1:port. Every call is bounded by its timeout.
class RawConnection {
 public:
  explicit RawConnection(uint16_t port);
  ~RawConnection();

  // Sends a hello and returns the welcome, or nullopt if none came.
  std::optional<wire::Welcome> Handshake(uint64_t client_id);
  void SendBytes(const std::string& bytes);
  void SendFrame(const wire::Frame& frame);
  std::optional<wire::Frame> ReadFrame(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // True if the server closes the connection within `timeout`.
  bool WaitForClose(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  void Close();

 private:
  // Runs the io_context until `done` or the timeout; cancels what is left on timeout.
  bool RunUntil(const bool& done, std::chrono::milliseconds timeout);

  asio::io_context io_;
  asio::ip::tcp::socket socket_;
};

}  // namespace railyard::rpc::testing
