// SPDX-License-Identifier: Apache-2.0
#include "bench/kv_child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

extern char** environ;

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

enum class WaitOutcome { kEnded, kDeadline, kFailed };

// Waits for `pid` to end, until the deadline.
WaitOutcome WaitUntil(pid_t pid, Clock::time_point deadline, int* status) {
  while (true) {
    const pid_t done = waitpid(pid, status, WNOHANG);
    if (done == pid) return WaitOutcome::kEnded;
    if (done < 0 && errno != EINTR) return WaitOutcome::kFailed;
    if (Clock::now() >= deadline) return WaitOutcome::kDeadline;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
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

  std::vector<std::string> argv_storage{"kv_bench"};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : argv_storage) argv.push_back(arg.data());
  argv.push_back(nullptr);

  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    result.error = Errno("pipe2");
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // dup2 clears close-on-exec on the child's stdout; both pipe ends close at exec.
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  pid_t pid = -1;
  const int spawn_error =
      posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (spawn_error != 0) {
    close(pipe_fds[0]);
    result.error = std::string("posix_spawn /proc/self/exe: ") + std::strerror(spawn_error);
    return result;
  }
  result.started = true;

  const bool eof = ReadUntilEof(pipe_fds[0], deadline, &result);
  close(pipe_fds[0]);
  int status = 0;
  const WaitOutcome waited = eof ? WaitUntil(pid, deadline, &status) : WaitOutcome::kDeadline;
  if (waited == WaitOutcome::kFailed) {
    result.error = Errno("waitpid");
    return result;
  }
  if (waited == WaitOutcome::kDeadline) {
    result.timed_out = true;
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return result;
  }
  if (WIFEXITED(status)) {
    result.exited = true;
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  return result;
}

}  // namespace railyard::bench
