// SPDX-License-Identifier: Apache-2.0
#include "bench/peer_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

namespace railyard::bench {
namespace {

using Clock = std::chrono::steady_clock;

sockaddr_in Loopback(uint16_t port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

bool Accepts(uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const sockaddr_in address = Loopback(port);
  const bool ok = connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
  close(fd);
  return ok;
}

std::string LogTail(const std::string& path) {
  std::ifstream in(path);
  std::stringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  return text.size() > 600 ? text.substr(text.size() - 600) : text;
}

}  // namespace

uint16_t PeerProcess::FreeLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in address = Loopback(0);
  socklen_t length = sizeof address;
  uint16_t port = 0;
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

std::unique_ptr<PeerProcess> PeerProcess::Start(const std::vector<std::string>& argv, uint16_t port,
                                                const std::string& log_path,
                                                std::chrono::milliseconds timeout,
                                                std::string* error) {
  const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) {
    *error = "opening " + log_path + ": " + std::strerror(errno);
    return nullptr;
  }
  load::ChildProcess::Spawn spawn;
  spawn.argv = argv;
  spawn.stdout_fd = spawn.stderr_fd = log;
  std::unique_ptr<load::ChildProcess> child;
  const base::Status started = load::ChildProcess::Start(spawn, &child);
  close(log);
  if (!started.ok()) {
    *error = started.message();
    return nullptr;
  }
  std::unique_ptr<PeerProcess> peer(new PeerProcess(std::move(child), port));
  const Clock::time_point give_up = Clock::now() + timeout;
  while (!Accepts(port)) {
    if (!peer->child_->Running()) {
      *error = argv[0] + " exited before it listened on port " + std::to_string(port) + " (" +
               peer->child_->exit().Describe() + "); log: " + LogTail(log_path);
      return nullptr;
    }
    if (Clock::now() >= give_up) {
      *error = argv[0] + " did not listen on port " + std::to_string(port) + " within " +
               std::to_string(timeout.count()) + " ms; log: " + LogTail(log_path);
      return nullptr;  // The destructor kills it.
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return peer;
}

PeerProcess::~PeerProcess() { Stop(); }

void PeerProcess::Stop() { child_->Stop(std::chrono::seconds(5)); }

}  // namespace railyard::bench
