// SPDX-License-Identifier: Apache-2.0
// A Boxcar server's connection as a hostile peer drives it, on the I/O engine the environment
// chooses (RAILYARD_RPC_IO; tests/fuzz/CMakeLists.txt runs this target on io_uring and on epoll):
// the input's bytes arrive over a real loopback connection, in pieces whose size the first byte
// picks, so frames, headers and bodies are cut at every point, then the peer stops writing and
// reads what the server answers until it closes. After each input the server must still answer a
// real client's call, whole.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "core/rpc/client.h"
#include "core/rpc/server.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace railyard::rpc;
using namespace std::chrono_literals;

constexpr char kEcho[] = "fuzz.Echo";

struct Peer {
  Peer() {
    ServerOptions options;
    options.name = "fuzz-stream";
    options.io_threads = 2;
    // A peer that stops mid-frame is closed quickly, so one input costs milliseconds.
    options.handshake_timeout = 300ms;
    options.frame_timeout = 300ms;
    options.max_frame_bytes = 1 << 20;
    server = std::make_unique<Server>(options);
    server->RegisterHandler(
        kEcho,
        [](const CallContext&, std::string_view payload) {
          return Reply{Status::Ok(), std::string(payload)};
        },
        Dispatch::kInline);
    if (!server->Start().ok()) std::abort();
    ClientOptions client_options;
    client_options.servers = {server->endpoint()};
    client_options.pool_size = 1;
    client_options.connect_timeout = 2000ms;
    client_options.default_timeout = 5000ms;
    client = std::make_unique<Client>(client_options);
    if (!client->Start().ok() || !client->WaitForPool(1, 10s)) std::abort();
  }
  std::unique_ptr<Server> server;
  std::unique_ptr<Client> client;
};

Peer& ThePeer() {
  static Peer* peer = new Peer();  // Never destroyed: libFuzzer exits without unwinding.
  return *peer;
}

// Sends `bytes` to the server in `piece`-byte writes, stops writing, and reads until the server
// closes or a second passes.
void Drive(uint16_t port, const uint8_t* bytes, size_t size, size_t piece) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) std::abort();
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    std::perror("fuzz_boxcar_stream: connect");
    std::abort();
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  const timeval second{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &second, sizeof second);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &second, sizeof second);
  for (size_t at = 0; at < size;) {
    const ssize_t sent = ::send(fd, bytes + at, std::min(piece, size - at), MSG_NOSIGNAL);
    if (sent <= 0) break;  // The server closed on a bad frame: nothing more to say.
    at += static_cast<size_t>(sent);
  }
  ::shutdown(fd, SHUT_WR);
  char sink[4096];
  for (int reads = 0; reads < 1024; ++reads) {  // Bounded: answers to a few frames at most.
    if (::recv(fd, sink, sizeof sink, 0) <= 0) break;
  }
  ::close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  Peer& peer = ThePeer();
  // 1-64 bytes a write, or (0) all at once.
  const size_t piece = data[0] % 65 == 0 ? size : data[0] % 65;
  Drive(peer.server->port(), data + 1, size - 1, piece);
  // The server survived the peer and serves a well-behaved client, whole.
  static uint64_t inputs = 0;
  if (++inputs % 16 == 1) {
    const std::string payload = "after input " + std::to_string(inputs);
    const CallResult result = peer.client->Call(kEcho, payload);
    if (!result.status.ok() || result.payload != payload) {
      std::fprintf(stderr, "fuzz_boxcar_stream: the server stopped answering: %s\n",
                   result.status.ToString().c_str());
      std::abort();
    }
  }
  return 0;
}
