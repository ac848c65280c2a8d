// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/restart_command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <string_view>

extern char** environ;

namespace railyard::cluster {

namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kKeptOutput = 4096;

std::string LastLine(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  const size_t at = text.rfind('\n');
  return at == std::string::npos ? text : text.substr(at + 1);
}

// Keeps what `fd` has to read now (its last kKeptOutput bytes); false once it is closed.
bool ReadAvailable(int fd, int wait_ms, std::string* out) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, wait_ms) <= 0) return true;
  char buffer[1024];
  const ssize_t n = ::read(fd, buffer, sizeof(buffer));
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  out->append(buffer, static_cast<size_t>(n));
  if (out->size() > 2 * kKeptOutput) out->erase(0, out->size() - kKeptOutput);
  return true;
}

// Waits for `pid` to exit, at most until `deadline`, collecting its output. The shell's exit
// ends the wait even if a process it left in the background still holds the pipe open.
bool WaitCollecting(pid_t pid, int fd, Clock::time_point deadline, int* status, std::string* out) {
  bool open = true;
  while (true) {
    const pid_t done = ::waitpid(pid, status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) {
      for (int i = 0; open && i < 64; ++i) open = ReadAvailable(fd, 0, out);
      return true;
    }
    if (Clock::now() >= deadline) return false;
    if (open) {
      open = ReadAvailable(fd, 50, out);
    } else {
      ::poll(nullptr, 0, 20);
    }
  }
}

}  // namespace

std::string ShellWord(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](unsigned char c) {
    return std::isalnum(c) || std::string_view("._-/:+@=").find(char(c)) != std::string_view::npos;
  });
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string RestartCommandLine(const std::string& command, const std::string& node) {
  const std::string name = ShellWord(node);
  std::string line = command;
  for (size_t at = line.find("{name}"); at != std::string::npos; at = line.find("{name}", at)) {
    line.replace(at, 6, name);
    at += name.size();
  }
  return line;
}

rpc::Status RunRestartCommand(const std::string& command, const std::string& node,
                              std::chrono::milliseconds timeout, std::string* output) {
  const std::string line = RestartCommandLine(command, node);
  int out_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return {rpc::Code::kInternal, "pipe failed"};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // A group of its own: a timeout kills what the shell started too (ssh, systemctl).
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::string sh = "/bin/sh", dash_c = "-c", text = line;
  char* argv[] = {sh.data(), dash_c.data(), text.data(), nullptr};
  pid_t pid = -1;
  const int spawned = ::posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(out_pipe[1]);
  if (spawned != 0) {
    ::close(out_pipe[0]);
    return {rpc::Code::kInternal, "cannot run /bin/sh for `" + line + "`"};
  }
  std::string said;
  int status = 0;
  const bool ended = WaitCollecting(pid, out_pipe[0], Clock::now() + timeout, &status, &said);
  ::close(out_pipe[0]);
  if (!ended) {
    ::kill(-pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (said.size() > kKeptOutput) said.erase(0, said.size() - kKeptOutput);
  if (output) *output = said;
  if (!ended) {
    return {rpc::Code::kDeadlineExceeded, "`" + line + "` did not end within " +
                                              std::to_string(timeout.count()) +
                                              " ms and was killed"};
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return rpc::Status::Ok();
  std::string how = WIFEXITED(status) ? "exited with " + std::to_string(WEXITSTATUS(status))
                    : WIFSIGNALED(status)
                        ? "was killed by signal " + std::to_string(WTERMSIG(status))
                        : std::string("did not exit normally");
  const std::string last = LastLine(said);
  return {rpc::Code::kInternal, "`" + line + "` " + how + (last.empty() ? "" : ": " + last)};
}

}  // namespace railyard::cluster
