// SPDX-License-Identifier: Apache-2.0
#include "core/load/node_process.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace railyard::load {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// The last few lines of a log, for an error message.
std::string TailOf(const std::string& path) {
  std::ifstream in(path);
  std::string line, tail;
  std::vector<std::string> lines;
  while (std::getline(in, line)) {
    lines.push_back(line);
    if (lines.size() > 3) lines.erase(lines.begin());
  }
  for (const std::string& l : lines) tail += (tail.empty() ? "" : " | ") + l;
  return tail;
}

// Reads what the child prints until a whole first line, EOF or the deadline.
std::string ReadFirstLine(int fd, Clock::time_point deadline) {
  std::string out;
  char buffer[256];
  while (out.find('\n') == std::string::npos) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) break;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the node exited.
    out.append(buffer, static_cast<size_t>(n));
  }
  return out.substr(0, out.find('\n'));
}

}  // namespace

rpc::Status FindNodeBinary(std::string* path) {
  std::string looked;
  if (const char* env = std::getenv("RAILYARD_NODE_BINARY"); env && *env) {
    if (IsExecutableFile(env)) {
      *path = env;
      return rpc::Status::Ok();
    }
    return {rpc::Code::kNotFound,
            std::string("$RAILYARD_NODE_BINARY is ") + env + ", which is not an executable file"};
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = self.parent_path() / "railyard-node";
    if (IsExecutableFile(beside.string())) {
      *path = beside.string();
      return rpc::Status::Ok();
    }
    looked = beside.string();
  }
  if (FindOnPath("railyard-node", path)) return rpc::Status::Ok();
  return {rpc::Code::kNotFound, "cannot find railyard-node (looked beside this program" +
                                    (looked.empty() ? std::string() : ", at " + looked) +
                                    ", and on $PATH); set $RAILYARD_NODE_BINARY"};
}

rpc::Status NodeProcess::Start(const std::string& binary, const std::vector<std::string>& flags,
                               const std::string& log_path, std::chrono::milliseconds timeout,
                               std::unique_ptr<NodeProcess>* out) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return {rpc::Code::kInternal, std::string("pipe: ") + std::strerror(errno)};
  }
  const int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log_fd < 0) {
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return {rpc::Code::kInternal, "cannot open " + log_path + ": " + std::strerror(errno)};
  }
  ChildProcess::Spawn spawn;
  spawn.argv = {binary};
  spawn.argv.insert(spawn.argv.end(), flags.begin(), flags.end());
  spawn.stdout_fd = pipe_fds[1];
  spawn.stderr_fd = log_fd;
  std::unique_ptr<ChildProcess> child;
  const base::Status started = ChildProcess::Start(spawn, &child);
  ::close(pipe_fds[1]);
  ::close(log_fd);
  if (!started.ok()) {
    ::close(pipe_fds[0]);
    return started;
  }
  std::unique_ptr<NodeProcess> node(new NodeProcess());
  node->child_ = std::move(child);
  const std::string line = ReadFirstLine(pipe_fds[0], Clock::now() + timeout);
  node->stdout_fd_ = pipe_fds[0];  // Kept open: a later line from the node must not meet EPIPE.
  std::istringstream words(line);
  std::string listen, service, admin_word, admin;
  words >> listen >> service >> admin_word >> admin;
  const auto service_endpoint = rpc::ParseEndpoint(service);
  const auto admin_endpoint = rpc::ParseEndpoint(admin);
  if (listen != "LISTEN" || admin_word != "ADMIN" || !service_endpoint || !admin_endpoint) {
    node->Stop(std::chrono::milliseconds(0));
    const std::string tail = TailOf(log_path);
    return {rpc::Code::kUnavailable,
            binary + " did not come up within " + std::to_string(timeout.count()) + " ms" +
                (tail.empty() ? std::string() : ": " + tail) + " (log: " + log_path + ")"};
  }
  node->service_ = *service_endpoint;
  node->admin_ = *admin_endpoint;
  *out = std::move(node);
  return rpc::Status::Ok();
}

NodeProcess::~NodeProcess() { Stop(std::chrono::milliseconds(0)); }

bool NodeProcess::Running() { return child_->Running(); }

NodeProcess::Exit NodeProcess::Stop(std::chrono::milliseconds grace) {
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
  stdout_fd_ = -1;
  const ChildProcess::Exit& exit = child_->Stop(grace);
  return {.on_its_own = !exit.killed_by_stop, .code = exit.exited ? exit.code : -1};
}

}  // namespace railyard::load
