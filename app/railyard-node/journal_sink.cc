// SPDX-License-Identifier: Apache-2.0
#include "app/railyard-node/journal_sink.h"

#include <sys/stat.h>
#include <sys/uio.h>
// CODE_FILE= and CODE_LINE= would name this sink, not the line that logged.
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/node/log_fields.h"

int JournalPriority(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::critical:
      return 2;
    case spdlog::level::err:
      return 3;
    case spdlog::level::warn:
      return 4;
    case spdlog::level::info:
      return 6;
    default:
      return 7;
  }
}

bool StderrIsJournal() {
  const char* stream = std::getenv("JOURNAL_STREAM");
  unsigned long long device = 0, inode = 0;
  if (stream == nullptr || std::sscanf(stream, "%llu:%llu", &device, &inode) != 2) return false;
  struct stat st {};
  if (::fstat(STDERR_FILENO, &st) != 0) return false;
  return st.st_dev == device && st.st_ino == inode;
}

void JournalSink::sink_it_(const spdlog::details::log_msg& message) {
  std::vector<std::string> lines;
  lines.push_back("MESSAGE=" + std::string(message.payload.data(), message.payload.size()));
  lines.push_back("PRIORITY=" + std::to_string(JournalPriority(message.level)));
  lines.push_back("SYSLOG_IDENTIFIER=railyard-node");
  if (const auto* fields = railyard::node::ScopedLogFields::Current()) {
    for (const railyard::node::LogField& field : *fields) {
      if (!field.value.empty()) lines.push_back(std::string(field.name) + "=" + field.value);
    }
  }
  std::vector<iovec> parts;
  for (std::string& line : lines) parts.push_back({line.data(), line.size()});
  // Values with newlines are sent in the protocol's binary form by sd_journal_sendv itself. If
  // journald is away the line is lost, as it would be on a closed stderr.
  sd_journal_sendv(parts.data(), static_cast<int>(parts.size()));
}
