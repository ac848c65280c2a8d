// SPDX-License-Identifier: Apache-2.0
#include "bench/kv_child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "core/load/child_process.h"

namespace railyard::bench {
namespace {

using Clock = std::chrono::steady_clock;

std::string Errno(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

int MillisecondsLeft(Clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  if (left <= 0) return 0;
  return left > 60'000 ? 60'000 : static_cast<int>(left);
}

// Reads `fd` into result->output until end of file or the deadline. False at the deadline.
bool ReadUntilEof(int fd, Clock::time_point deadline, ChildResult* result) {
  char buffer[4096];
  while (true) {
    const int wait_ms = MillisecondsLeft(deadline);
    if (wait_ms == 0) return false;
    pollfd poll_fd{fd, POLLIN, 0};
    const int ready = poll(&poll_fd, 1, wait_ms);
    if (ready < 0 && errno != EINTR) {
      result->error = Errno("poll");
      return true;
    }
    if (ready <= 0) continue;
    const ssize_t got = read(fd, buffer, sizeof(buffer));
    if (got == 0) return true;
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      result->error = Errno("read");
      return true;
    }
    const size_t room = kMaxChildOutputBytes - result->output.size();
    result->output.append(buffer, std::min(room, static_cast<size_t>(got)));
  }
}

}  // namespace

std::string ChildResult::Describe() const {
  if (!started) return "did not start (" + error + ")";
  if (timed_out) return "ran out of time and was killed";
  if (exited) return "exited with status " + std::to_string(exit_code);
  if (signal == 0) return "could not be waited for (" + error + ")";
  return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
}

ChildResult RunSelf(const std::vector<std::string>& args, std::chrono::milliseconds timeout) {
  ChildResult result;
  const Clock::time_point deadline = Clock::now() + timeout;
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    result.error = Errno("pipe2");
    return result;
  }
  load::ChildProcess::Spawn spawn;
  spawn.argv = {"kv_bench"};
  spawn.argv.insert(spawn.argv.end(), args.begin(), args.end());
  spawn.program = "/proc/self/exe";
  spawn.stdout_fd = pipe_fds[1];
  std::unique_ptr<load::ChildProcess> child;
  const base::Status started = load::ChildProcess::Start(spawn, &child);
  close(pipe_fds[1]);
  if (!started.ok()) {
    close(pipe_fds[0]);
    result.error = started.message();
    return result;
  }
  result.started = true;

  const bool eof = ReadUntilEof(pipe_fds[0], deadline, &result);
  close(pipe_fds[0]);
  if (!eof || !child->WaitUntil(deadline)) {
    result.timed_out = true;
    child->Stop(std::chrono::milliseconds(0));
    return result;
  }
  const load::ChildProcess::Exit& exit = child->exit();
  result.exited = exit.exited;
  result.exit_code = exit.code;
  result.signal = exit.signal;
  return result;
}

}  // namespace railyard::bench
