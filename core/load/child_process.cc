// SPDX-License-Identifier: Apache-2.0
#include "core/load/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <thread>

namespace railyard::load {

namespace {

using Clock = std::chrono::steady_clock;

std::string Errno(const std::string& what, int error) { return what + ": " + std::strerror(error); }

}  // namespace

bool IsExecutableFile(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

bool FindOnPath(const std::string& name, std::string* path) {
  const char* dirs = std::getenv("PATH");
  std::stringstream in(dirs ? dirs : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(in, dir, ':')) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + name;
    if (IsExecutableFile(candidate)) {
      *path = candidate;
      return true;
    }
  }
  return false;
}

std::string ChildProcess::Exit::Describe() const {
  if (!ended) return "still running";
  if (exited) return "exited with status " + std::to_string(code);
  if (signal == 0) return "ended (its status was collected elsewhere)";
  return "killed by signal " + std::to_string(signal) + " (" + ::strsignal(signal) + ")";
}

base::Status ChildProcess::Start(const Spawn& spawn, std::unique_ptr<ChildProcess>* out) {
  if (spawn.argv.empty()) return base::Status::InvalidArgument("no program to start");
  // Resolved before fork, since the child may only make async-signal-safe calls.
  std::string program = spawn.program;
  if (program.empty()) {
    const std::string& name = spawn.argv[0];
    if (name.find('/') != std::string::npos) {
      program = name;
    } else if (!FindOnPath(name, &program)) {
      return base::Status::NotFound("cannot find " + name + " on $PATH");
    }
  }
  // Everything the child needs is made before fork: after it, only async-signal-safe calls.
  std::vector<std::string> args = spawn.argv;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The exec's error comes back through this pipe; a successful exec closes it (O_CLOEXEC).
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return {base::StatusCode::kInternal, Errno("pipe", errno)};
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    ::close(report[0]);
    ::close(report[1]);
    return {base::StatusCode::kInternal, Errno("fork", error)};
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // The parent died before prctl.
    if (spawn.stdout_fd >= 0) ::dup2(spawn.stdout_fd, STDOUT_FILENO);
    if (spawn.stderr_fd >= 0) ::dup2(spawn.stderr_fd, STDERR_FILENO);
    ::execv(program.c_str(), argv.data());
    const int error = errno;
    while (::write(report[1], &error, sizeof error) < 0 && errno == EINTR) {
    }
    ::_exit(127);
  }
  ::close(report[1]);
  int exec_error = 0;
  ssize_t got;
  while ((got = ::read(report[0], &exec_error, sizeof exec_error)) < 0 && errno == EINTR) {
  }
  ::close(report[0]);
  std::unique_ptr<ChildProcess> child(new ChildProcess(pid));
  if (got == static_cast<ssize_t>(sizeof exec_error)) {
    child->Stop(std::chrono::milliseconds(0));  // Reaps the child that failed to exec.
    return {exec_error == ENOENT ? base::StatusCode::kNotFound : base::StatusCode::kInternal,
            Errno("executing " + program, exec_error)};
  }
  *out = std::move(child);
  return base::Status::Ok();
}

ChildProcess::~ChildProcess() { Stop(std::chrono::milliseconds(0)); }

void ChildProcess::Reaped(int status) {
  pid_ = -1;
  exit_.ended = true;
  if (status == -1) return;  // Unknown: neither exited nor signalled.
  exit_.exited = WIFEXITED(status);
  exit_.code = exit_.exited ? WEXITSTATUS(status) : -1;
  exit_.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

bool ChildProcess::Running() {
  if (pid_ <= 0) return false;
  int status = 0;
  const pid_t done = ::waitpid(pid_, &status, WNOHANG);
  if (done == pid_) {
    Reaped(status);
  } else if (done < 0 && errno == ECHILD) {
    Reaped(-1);  // Collected elsewhere: ended, how is unknown.
  }
  return pid_ > 0;
}

bool ChildProcess::WaitUntil(Clock::time_point deadline) {
  while (Running()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

const ChildProcess::Exit& ChildProcess::Stop(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return exit_;
  if (grace.count() > 0) {
    ::kill(pid_, SIGTERM);
    if (WaitUntil(Clock::now() + grace)) return exit_;
  }
  ::kill(pid_, SIGKILL);
  int status = 0;
  pid_t done;
  while ((done = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
  }
  Reaped(done == pid_ ? status : -1);
  exit_.killed_by_stop = true;
  return exit_;
}

}  // namespace railyard::load
