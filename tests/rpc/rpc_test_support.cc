// SPDX-License-Identifier: Apache-2.0
#include "tests/rpc/rpc_test_support.h"

#include <array>
#include <stdexcept>
#include <thread>

namespace railyard::rpc::testing {

using Clock = std::chrono::steady_clock;

TestServer StartTestServer(const std::string& name, std::chrono::microseconds service_time,
                           uint32_t max_frame_bytes) {
  TestServer result;
  ServerOptions options;
  options.name = name;
  options.io_threads = 1;
  options.max_frame_bytes = max_frame_bytes;
  result.server = std::make_unique<Server>(options);
  auto handled = result.handled;
  result.server->RegisterHandler(
      kEchoMethod, [handled, service_time](const CallContext&, std::string_view payload) {
        handled->fetch_add(1);
        if (service_time.count() > 0) std::this_thread::sleep_for(service_time);
        return Reply{Status::Ok(), std::string(payload)};
      });
  result.server->RegisterHandler(kFailMethod, [](const CallContext&, std::string_view) {
    return Reply{{Code::kNotFound, "no such document"}, {}};
  });
  const Status status = result.server->Start();
  if (!status.ok()) throw std::runtime_error("test server failed to start: " + status.ToString());
  return result;
}

ClientOptions FastClientOptions(std::vector<Endpoint> servers, size_t pool_size) {
  ClientOptions options;
  options.servers = std::move(servers);
  options.pool_size = pool_size;
  options.acquirer_sleep_min = std::chrono::milliseconds(1);
  options.acquirer_sleep_max = std::chrono::milliseconds(5);
  options.lame_duck_avoid = std::chrono::milliseconds(200);
  options.connect_timeout = std::chrono::milliseconds(500);
  return options;
}

std::vector<uint32_t> PooledSlots(const Client& client, uint32_t server) {
  std::vector<uint32_t> slots;
  for (const PoolEntrySnapshot& e : client.Snapshot().entries) {
    if (e.server == server) slots.push_back(e.slot);
  }
  std::sort(slots.begin(), slots.end());
  return slots;
}

RawConnection::RawConnection(uint16_t port) : socket_(io_) {
  socket_.connect({asio::ip::make_address("127.0.0.1"), port});
}

RawConnection::~RawConnection() { Close(); }

bool RawConnection::RunUntil(const bool& done, std::chrono::milliseconds timeout) {
  io_.restart();
  const auto give_up = Clock::now() + timeout;
  while (!done && Clock::now() < give_up) io_.run_one_for(give_up - Clock::now());
  if (!done) {
    asio::error_code ignored;
    socket_.cancel(ignored);
    io_.restart();
    io_.run();
  }
  return done;
}

std::optional<wire::Welcome> RawConnection::Handshake(uint64_t client_id) {
  wire::Frame hello;
  hello.mutable_hello()->set_client_id(client_id);
  hello.mutable_hello()->set_client_name("raw-test");
  hello.mutable_hello()->set_protocol_version(kProtocolVersion);
  SendFrame(hello);
  const std::optional<wire::Frame> answer = ReadFrame();
  if (!answer || !answer->has_welcome()) return std::nullopt;
  return answer->welcome();
}

void RawConnection::SendBytes(const std::string& bytes) {
  asio::error_code ignored;
  asio::write(socket_, asio::buffer(bytes), ignored);
}

void RawConnection::SendFrame(const wire::Frame& frame) { SendBytes(EncodeFrame(frame)); }

std::optional<wire::Frame> RawConnection::ReadFrame(std::chrono::milliseconds timeout) {
  std::array<unsigned char, kFrameHeaderBytes> header{};
  bool done = false;
  asio::error_code error;
  asio::async_read(socket_, asio::buffer(header), [&](const asio::error_code& ec, size_t) {
    error = ec;
    done = true;
  });
  if (!RunUntil(done, timeout) || error) return std::nullopt;
  std::string body(DecodeFrameLength(header.data()), '\0');
  done = false;
  asio::async_read(socket_, asio::buffer(body), [&](const asio::error_code& ec, size_t) {
    error = ec;
    done = true;
  });
  if (!RunUntil(done, timeout) || error) return std::nullopt;
  wire::Frame frame;
  if (!frame.ParseFromString(body)) return std::nullopt;
  return frame;
}

bool RawConnection::WaitForClose(std::chrono::milliseconds timeout) {
  std::array<char, 256> sink{};
  bool closed = false;
  const auto give_up = Clock::now() + timeout;
  while (!closed && Clock::now() < give_up) {
    bool done = false;
    asio::error_code error;
    socket_.async_read_some(asio::buffer(sink), [&](const asio::error_code& ec, size_t) {
      error = ec;
      done = true;
    });
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(give_up - Clock::now());
    if (!RunUntil(done, std::max(left, std::chrono::milliseconds(1)))) break;
    closed = static_cast<bool>(error);  // EOF or reset; data means keep reading.
  }
  return closed;
}

void RawConnection::Close() {
  asio::error_code ignored;
  socket_.close(ignored);
}

}  // namespace railyard::rpc::testing
