// SPDX-License-Identifier: Apache-2.0
#include "core/trace/telemetry_recorder.h"

#include "core/trace/recording.h"

namespace railyard::trace {

Status TelemetryRecorder::Record(const std::string& node, const admin::Telemetry& telemetry,
                                 uint64_t* new_events) {
  if (Status s = writer_->AppendSnapshot(node, telemetry); !s.ok()) return s;
  unreachable_.erase(node);
  int64_t& newest = newest_command_ms_[node];
  for (const admin::CommandEvent& e : telemetry.recent_commands()) {
    if (e.unix_ms() <= newest) continue;
    newest = e.unix_ms();
    if (Status s = writer_->AppendEvent(e.unix_ms(), node, e.command(), NodeCommandEventDetail(e));
        !s.ok()) {
      return s;
    }
    if (new_events) ++*new_events;
  }
  return Status::Ok();
}

Status TelemetryRecorder::RecordUnreachable(const std::string& node, int64_t unix_ms,
                                            std::string_view reason, uint64_t* new_events) {
  if (!unreachable_.insert(node).second) return Status::Ok();
  if (Status s = writer_->AppendEvent(unix_ms, node, kEventUnreachable, reason); !s.ok()) {
    unreachable_.erase(node);
    return s;
  }
  if (new_events) ++*new_events;
  return Status::Ok();
}

void TelemetryRecorder::SkipHistory(const std::string& node, const admin::Telemetry& telemetry) {
  int64_t& newest = newest_command_ms_[node];
  for (const admin::CommandEvent& e : telemetry.recent_commands()) {
    newest = std::max<int64_t>(newest, e.unix_ms());
  }
}

}  // namespace railyard::trace
