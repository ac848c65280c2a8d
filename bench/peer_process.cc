// SPDX-License-Identifier: Apache-2.0
#include "bench/peer_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

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

// Waits for `pid` up to `timeout`; true if it was reaped.
bool ReapWithin(pid_t pid, std::chrono::milliseconds timeout) {
  const Clock::time_point give_up = Clock::now() + timeout;
  while (true) {
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD)) return true;
    if (Clock::now() >= give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
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
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    close(log);
    return nullptr;
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // The parent died before the line above.
    dup2(log, STDOUT_FILENO);
    dup2(log, STDERR_FILENO);
    execvp(args[0], args.data());
    dprintf(STDERR_FILENO, "exec %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  close(log);
  std::unique_ptr<PeerProcess> peer(new PeerProcess(pid, port));
  const Clock::time_point give_up = Clock::now() + timeout;
  while (!Accepts(port)) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      peer->pid_ = -1;
      *error = argv[0] + " exited before it listened on port " + std::to_string(port) +
               "; log: " + LogTail(log_path);
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

void PeerProcess::Stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  if (!ReapWithin(pid_, std::chrono::seconds(5))) {
    kill(pid_, SIGKILL);
    ReapWithin(pid_, std::chrono::seconds(5));
  }
  pid_ = -1;
}

}  // namespace railyard::bench
