// SPDX-License-Identifier: Apache-2.0
#include "core/node/process_metrics.h"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace railyard::node {

namespace {

// The system's boot time (Unix seconds), from /proc/stat's btime line.
std::optional<double> BootTimeSeconds() {
  std::ifstream in("/proc/stat");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("btime ", 0) == 0) return std::stod(line.substr(6));
  }
  return std::nullopt;
}

}  // namespace

std::optional<ProcessFigures> ReadProcessFigures() {
  std::ifstream in("/proc/self/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  // The command name (field 2) may hold spaces and parentheses: fields count from its last ')'.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 2));
  std::vector<std::string> f;  // f[0] is field 3 (state).
  for (std::string field; fields >> field;) f.push_back(field);
  if (f.size() < 22) return std::nullopt;
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  const std::optional<double> boot = BootTimeSeconds();
  if (ticks <= 0 || !boot) return std::nullopt;
  ProcessFigures p;
  p.cpu_seconds = (std::stod(f[11]) + std::stod(f[12])) / ticks;      // utime + stime (14, 15).
  p.start_time_seconds = *boot + std::stod(f[19]) / ticks;            // starttime (22).
  p.virtual_bytes = std::stoull(f[20]);                               // vsize (23).
  p.resident_bytes = static_cast<uint64_t>(std::stod(f[21]) * page);  // rss in pages (24).
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++p.open_fds;
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    p.max_fds = limit.rlim_cur;
  }
  return p;
}

admin::DiskSpace DiskFigures::ToProto() const {
  admin::DiskSpace disk;
  disk.set_free_bytes(free_bytes);
  disk.set_size_bytes(size_bytes);
  return disk;
}

std::optional<DiskFigures> ReadDiskFigures(const std::string& directory) {
  std::error_code ec;
  const std::filesystem::space_info space = std::filesystem::space(directory, ec);
  if (ec) return std::nullopt;
  return DiskFigures{space.available, space.capacity};
}

}  // namespace railyard::node
