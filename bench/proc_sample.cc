// SPDX-License-Identifier: Apache-2.0
#include "bench/proc_sample.h"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace railyard::bench {

std::string StatFields(const std::string& stat_line) {
  // The fields after the command name start past its closing ')' and a space.
  const size_t close = stat_line.rfind(')');
  if (close == std::string::npos || close + 2 >= stat_line.size()) return {};
  return stat_line.substr(close + 2);
}

std::vector<pid_t> ThreadsOf(pid_t pid) {
  std::vector<pid_t> tids;
  std::error_code ec;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    tids.push_back(static_cast<pid_t>(std::stol(task.path().filename().string())));
  }
  return tids;
}

char ThreadState(pid_t pid, pid_t tid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const std::string fields = StatFields(line);
  return fields.empty() ? '?' : fields[0];
}

ProcSample ReadProc(pid_t pid) {
  ProcSample p;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return p;
  const std::string after_name = StatFields(line);
  if (after_name.empty()) return p;
  std::istringstream fields(after_name);
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  p.cpu_s = double(utime + stime) / double(sysconf(_SC_CLK_TCK));
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  while (std::getline(status, line)) {
    if (line.starts_with("VmRSS:")) p.rss_mib = std::stod(line.substr(6)) / 1024.0;
    if (line.starts_with("VmHWM:")) p.peak_mib = std::stod(line.substr(6)) / 1024.0;
    if (line.starts_with("RssAnon:")) p.rss_anon_mib = std::stod(line.substr(8)) / 1024.0;
    if (line.starts_with("RssFile:")) p.rss_file_mib = std::stod(line.substr(8)) / 1024.0;
  }
  p.ok = true;
  return p;
}

double SelfCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

}  // namespace railyard::bench
