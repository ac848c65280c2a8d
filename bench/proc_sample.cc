// SPDX-License-Identifier: Apache-2.0
#include "bench/proc_sample.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace railyard::bench {

ProcSample ReadProc(pid_t pid) {
  ProcSample p;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return p;
  // The fields after the command name (which may hold spaces) start at its closing ')'.
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return p;
  std::istringstream fields(line.substr(close + 2));
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
