// SPDX-License-Identifier: Apache-2.0
#include "core/load/lab_network.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

extern char** environ;

namespace railyard::load {

namespace {

std::vector<char*> Argv(std::vector<std::string>& words) {
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  return argv;
}

std::string Joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& w : words) text += (text.empty() ? "" : " ") + w;
  return text;
}

}  // namespace

rpc::Status RunTool(const std::vector<std::string>& argv_in) {
  std::vector<std::string> words = argv_in;
  std::vector<char*> argv = Argv(words);
  int err_pipe[2];
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return {rpc::Code::kInternal, "pipe failed"};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int spawned = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(err_pipe[1]);
  std::string err;
  char buffer[512];
  for (ssize_t n; (n = ::read(err_pipe[0], buffer, sizeof(buffer))) > 0;) err.append(buffer, n);
  ::close(err_pipe[0]);
  if (spawned != 0) {
    return {rpc::Code::kInternal, "cannot run " + words[0] + " (the iproute2 package)"};
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return rpc::Status::Ok();
  while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
  return {rpc::Code::kInternal, "`" + Joined(argv_in) + "` failed: " + err};
}

bool NamespacesAvailable(std::string* why) {
  if (::geteuid() != 0) {
    *why = "not root";
    return false;
  }
  const std::string probe = "railyard-probe-" + std::to_string(::getpid());
  if (rpc::Status s = RunTool({"ip", "netns", "add", probe}); !s.ok()) {
    *why = s.message();
    return false;
  }
  (void)RunTool({"ip", "netns", "del", probe});
  return true;
}

rpc::Status SpawnDetached(const std::string& netns, const std::string& binary,
                          const std::vector<std::string>& args, const std::string& out_path,
                          const std::string& log_path, pid_t* pid) {
  // Everything the child needs is made before fork: after it, only async-signal-safe calls.
  std::vector<std::string> words = {binary};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv = Argv(words);
  int ns_fd = -1;
  if (!netns.empty()) {
    ns_fd = ::open(("/run/netns/" + netns).c_str(), O_RDONLY | O_CLOEXEC);
    if (ns_fd < 0) return {rpc::Code::kInternal, "no network namespace " + netns};
  }
  const int out_fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  rpc::Status status = rpc::Status::Ok();
  if (out_fd < 0 || log_fd < 0 || null_fd < 0) {
    status = {rpc::Code::kInternal, "cannot open " + out_path + " or " + log_path};
  } else {
    const pid_t child = ::fork();
    if (child == 0) {
      ::setsid();
      if (ns_fd >= 0 && ::setns(ns_fd, CLONE_NEWNET) != 0) ::_exit(126);
      ::dup2(null_fd, STDIN_FILENO);
      ::dup2(out_fd, STDOUT_FILENO);
      ::dup2(log_fd, STDERR_FILENO);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    if (child < 0) status = {rpc::Code::kInternal, "fork failed"};
    *pid = child;
  }
  for (int fd : {ns_fd, out_fd, log_fd, null_fd}) {
    if (fd >= 0) ::close(fd);
  }
  return status;
}

bool ProcessRuns(pid_t pid, const std::string& needle) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  const std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A zombie (ended, not yet reaped) has an empty command line: not running.
  return cmdline.find(needle) != std::string::npos;
}

}  // namespace railyard::load
