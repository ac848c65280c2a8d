// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <spdlog/details/null_mutex.h>
#include <spdlog/sinks/base_sink.h>

// Log lines to journald over its native protocol (sd_journal_sendv), each with its priority
// (`journalctl -p warning` shows warnings and errors), SYSLOG_IDENTIFIER=railyard-node, and the
// structured fields of core/node/log_fields.h (the audit lines' RAILYARD_AUDIT_*). journald keeps
// its own timestamps, so MESSAGE is the bare text.
//
// Thread safety: sd_journal_sendv keeps no state between calls, so the sink needs no lock.
class JournalSink : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& message) override;
  void flush_() override {}
};

// syslog's priority for a spdlog level: err 3, warn 4, info 6, debug and trace 7, critical 2.
int JournalPriority(spdlog::level::level_enum level);

// Whether stderr is connected to the journal: systemd sets JOURNAL_STREAM to "DEVICE:INODE" of the
// stream it gave the service, which stderr still is unless someone redirected it.
bool StderrIsJournal();
