// SPDX-License-Identifier: Apache-2.0
#include "core/base/usable_cores.h"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace railyard::base {

namespace {

std::optional<long long> ParseInt(std::string_view text) {
  long long value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::string Trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return Trimmed(text.str());
}

std::vector<std::string> Split(std::string_view text, char by) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == by) {
      parts.emplace_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

size_t AffinityCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return static_cast<size_t>(count);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

// A mounted cgroup hierarchy that holds the CPU controller: where it is mounted, which cgroup
// path its root is (a container sees its own cgroup as "/"), and its version.
struct CpuHierarchy {
  std::string mount_point;
  std::string root;
  bool v2 = false;
};

// From /proc/self/mountinfo: "ID PARENT MAJ:MIN ROOT MOUNT OPTIONS [TAGS...] - TYPE SOURCE SUPER".
std::vector<CpuHierarchy> CpuHierarchies() {
  std::vector<CpuHierarchy> found;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = Split(line, ' ');
    const auto dash = std::find(f.begin(), f.end(), "-");
    if (f.size() < 5 || dash == f.end() || f.end() - dash < 4) continue;
    const std::string& type = dash[1];
    bool cpu = type == "cgroup2";
    if (type == "cgroup") {
      for (const std::string& option : Split(dash[3], ',')) cpu = cpu || option == "cpu";
    }
    if (cpu) found.push_back({f[4], f[3], type == "cgroup2"});
  }
  return found;
}

// This process's cgroup path in a hierarchy, from /proc/self/cgroup ("ID:CONTROLLERS:PATH").
std::optional<std::string> OwnCgroup(bool v2) {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = Split(line, ':');
    if (f.size() < 3) continue;
    const std::string path = line.substr(f[0].size() + f[1].size() + 2);
    if (v2 && f[0] == "0" && f[1].empty()) return path;
    if (!v2) {
      for (const std::string& controller : Split(f[1], ',')) {
        if (controller == "cpu") return path;
      }
    }
  }
  return std::nullopt;
}

std::optional<double> QuotaAt(const std::string& dir, bool v2) {
  if (v2) {
    const std::optional<std::string> max = ReadFile(dir + "/cpu.max");
    return max ? CpuMaxCores(*max) : std::nullopt;
  }
  const std::optional<std::string> quota = ReadFile(dir + "/cpu.cfs_quota_us");
  const std::optional<std::string> period = ReadFile(dir + "/cpu.cfs_period_us");
  if (!quota || !period) return std::nullopt;
  const std::optional<long long> q = ParseInt(*quota);
  const std::optional<long long> p = ParseInt(*period);
  return q && p ? CfsQuotaCores(*q, *p) : std::nullopt;
}

// The smallest quota from the process's cgroup up to its hierarchy's root, over every hierarchy
// with the CPU controller.
std::optional<double> CgroupQuotaCores() {
  std::optional<double> least;
  for (const CpuHierarchy& h : CpuHierarchies()) {
    std::optional<std::string> path = OwnCgroup(h.v2);
    if (!path) continue;
    // Inside a container the hierarchy's root is the container's cgroup: strip it.
    if (h.root != "/" && (*path == h.root || path->rfind(h.root + "/", 0) == 0)) {
      path = path->substr(h.root.size());
    }
    std::string relative = *path;
    for (;;) {  // From the process's cgroup up to the mount point: a path has few parts.
      const std::optional<double> quota = QuotaAt(h.mount_point + relative, h.v2);
      if (quota) least = least ? std::min(*least, *quota) : *quota;
      const size_t slash = relative.rfind('/');
      if (relative.empty() || relative == "/" || slash == std::string::npos) break;
      relative.resize(slash);
    }
  }
  return least;
}

}  // namespace

std::optional<double> CpuMaxCores(std::string_view cpu_max) {
  const std::vector<std::string> f = Split(cpu_max, ' ');
  if (f.size() != 2 || f[0] == "max") return std::nullopt;
  const std::optional<long long> quota = ParseInt(f[0]);
  const std::optional<long long> period = ParseInt(f[1]);
  if (!quota || !period) return std::nullopt;
  return CfsQuotaCores(*quota, *period);
}

std::optional<double> CfsQuotaCores(long long quota_us, long long period_us) {
  if (quota_us <= 0 || period_us <= 0) return std::nullopt;
  return static_cast<double>(quota_us) / static_cast<double>(period_us);
}

size_t UsableCores() {
  size_t cores = AffinityCores();
  if (const std::optional<double> quota = CgroupQuotaCores()) {
    cores = std::min(cores, static_cast<size_t>(std::ceil(*quota)));
  }
  return std::max<size_t>(1, cores);
}

}  // namespace railyard::base
