// SPDX-License-Identifier: Apache-2.0
#include "bench/kv_memory_cgroup.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace railyard::bench {
namespace {

namespace fs = std::filesystem;

// This process's cgroup path in the hierarchy whose /proc/self/cgroup line has `controllers`
// ("memory" for v1; "" for the v2 line "0::/path"). Empty if there is none.
std::string OwnCgroupPath(const std::string& controllers) {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    const size_t first = line.find(':');
    const size_t second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string listed = line.substr(first + 1, second - first - 1);
    bool match = listed == controllers;
    if (!controllers.empty()) {
      std::stringstream names(listed);
      std::string name;
      while (!match && std::getline(names, name, ',')) match = name == controllers;
    }
    if (match) return line.substr(second + 1);
  }
  return {};
}

// Where cgroup v2 is mounted (from /proc/self/mountinfo), or empty.
std::string CgroupV2Mount() {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    const size_t dash = line.find(" - ");
    if (dash == std::string::npos || line.compare(dash + 3, 8, "cgroup2 ") != 0) continue;
    std::stringstream fields(line);
    std::string field;
    for (int i = 0; i < 5 && fields >> field; ++i) {
    }
    return field;  // The fifth field: the mount point.
  }
  return {};
}

bool WriteFile(const std::string& path, const std::string& text, std::string* error) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (out.fail()) {
    *error = "cannot write '" + text + "' to " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

// The first number in `path` after `key` (or the file's first number when `key` is empty).
uint64_t ReadNumber(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string word;
  uint64_t value = 0;
  if (key.empty()) return (in >> value) ? value : 0;
  while (in >> word) {
    if (word == key) return (in >> value) ? value : 0;
  }
  return 0;
}

// Makes <base><own path>/<name> and sets its limit through `limit_file`.
bool MakeUnder(const fs::path& base, const std::string& own, const std::string& name,
               const char* limit_file, uint64_t limit_bytes, std::string* directory,
               std::string* error) {
  const fs::path parent = base / fs::path(own).relative_path();
  const fs::path dir = parent / name;
  std::error_code ec;
  if (!fs::create_directory(dir, ec)) {
    *error = "cannot create " + dir.string() + ": " + (ec ? ec.message() : "it already exists");
    return false;
  }
  *directory = dir.string();
  if (!fs::exists(dir / limit_file)) {
    *error = dir.string() + " has no " + limit_file +
             " (the memory controller is not enabled for " + parent.string() + ")";
    return false;
  }
  return WriteFile((dir / limit_file).string(), std::to_string(limit_bytes), error);
}

}  // namespace

MemoryCgroup::~MemoryCgroup() {
  if (!directory_.empty()) rmdir(directory_.c_str());
}

bool MemoryCgroup::Create(const std::string& name, uint64_t limit_bytes, std::string* error) {
  std::string v1_error = "no cgroup v1 memory controller in /proc/self/cgroup";
  const std::string v1_own = OwnCgroupPath("memory");
  if (!v1_own.empty() && fs::exists("/sys/fs/cgroup/memory/memory.limit_in_bytes")) {
    if (MakeUnder("/sys/fs/cgroup/memory", v1_own, name, "memory.limit_in_bytes", limit_bytes,
                  &directory_, &v1_error)) {
      procs_path_ = directory_ + "/cgroup.procs";
      return true;
    }
    if (!directory_.empty()) rmdir(directory_.c_str());
    directory_.clear();
  }
  std::string v2_error = "no cgroup2 file system mounted";
  const std::string mount = CgroupV2Mount();
  if (!mount.empty()) {
    if (MakeUnder(mount, OwnCgroupPath(""), name, "memory.max", limit_bytes, &directory_,
                  &v2_error)) {
      procs_path_ = directory_ + "/cgroup.procs";
      v2_ = true;
      return true;
    }
    if (!directory_.empty()) rmdir(directory_.c_str());
    directory_.clear();
  }
  *error =
      "cannot make a memory cgroup (needs cgroup v1's memory controller or cgroup v2 with "
      "memory enabled, and permission to create a cgroup): v1: " +
      v1_error + "; v2: " + v2_error;
  return false;
}

uint64_t MemoryCgroup::PeakBytes() const {
  return ReadNumber(directory_ + (v2_ ? "/memory.peak" : "/memory.max_usage_in_bytes"), "");
}

uint64_t MemoryCgroup::OomKills() const {
  return ReadNumber(directory_ + (v2_ ? "/memory.events" : "/memory.oom_control"), "oom_kill");
}

bool JoinMemoryCgroup(const std::string& procs_path, std::string* error) {
  return MoveIntoMemoryCgroup(procs_path, getpid(), error);
}

bool MoveIntoMemoryCgroup(const std::string& procs_path, pid_t pid, std::string* error) {
  return WriteFile(procs_path, std::to_string(pid), error);
}

}  // namespace railyard::bench
