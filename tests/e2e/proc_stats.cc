// SPDX-License-Identifier: Apache-2.0
#include "tests/e2e/proc_stats.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_set>
#include <utility>

namespace railyard::e2e {

namespace {

// Socket inodes of the TCP connections in /proc/<pid>/net/tcp{,6} (the process's network
// namespace) whose state is ESTABLISHED (01) or CLOSE_WAIT (08).
std::unordered_set<std::string> ConnectionInodes(int64_t pid) {
  std::unordered_set<std::string> inodes;
  for (const char* table : {"tcp", "tcp6"}) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/net/" + table);
    std::string line;
    std::getline(in, line);  // Header.
    while (std::getline(in, line)) {
      // sl local rem st tx:rx tr:when retrnsmt uid timeout inode ...
      std::istringstream fields(line);
      std::string sl, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      if (!(fields >> sl >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
            timeout >> inode)) {
        continue;
      }
      if (state == "01" || state == "08") inodes.insert(inode);
    }
  }
  return inodes;
}

}  // namespace

std::optional<FdCounts> CountFds(int64_t pid, std::vector<std::string>* targets) {
  namespace fs = std::filesystem;
  const fs::path dir = "/proc/" + std::to_string(pid) + "/fd";
  const std::unordered_set<std::string> connections = ConnectionInodes(pid);
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return std::nullopt;
  FdCounts counts;
  if (targets) targets->clear();
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return std::nullopt;
    ++counts.total;
    std::error_code link_ec;
    const std::string target = fs::read_symlink(it->path(), link_ec).string();
    if (targets) targets->push_back(link_ec ? "?" : target);
    // "socket:[12345]"
    if (!link_ec && target.rfind("socket:[", 0) == 0 && target.size() > 9 &&
        connections.count(target.substr(8, target.size() - 9)) > 0) {
      ++counts.connections;
    }
  }
  return counts;
}

std::optional<MemoryKib> ReadMemory(int64_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  if (!in) return std::nullopt;
  MemoryKib memory;
  const std::pair<const char*, int64_t*> wanted[] = {{"VmRSS:", &memory.rss},
                                                     {"RssAnon:", &memory.rss_anon},
                                                     {"RssFile:", &memory.rss_file},
                                                     {"VmHWM:", &memory.hwm}};
  int found = 0;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    int64_t kib = 0;
    if (!(fields >> key >> kib)) continue;
    for (const auto& [name, out] : wanted) {
      if (key == name) {
        *out = kib;
        ++found;
      }
    }
  }
  if (found != 4) return std::nullopt;
  return memory;
}

}  // namespace railyard::e2e
