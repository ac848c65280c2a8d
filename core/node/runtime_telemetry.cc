// SPDX-License-Identifier: Apache-2.0
#include "core/node/runtime_telemetry.h"

namespace railyard::node {

int64_t UnixMillis(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

admin::NodeState NodeStateOf(rpc::ServerState state) {
  switch (state) {
    case rpc::ServerState::kServing:
      return admin::NODE_SERVING;
    case rpc::ServerState::kStarting:
      return admin::NODE_STARTING;
    default:
      return admin::NODE_LAME_DUCK;
  }
}

std::vector<rpc::SlotInfo> FillServerSnapshot(const SnapshotSource& source,
                                              const rpc::Server& server, const rpc::Endpoint& admin,
                                              admin::Telemetry* telemetry) {
  telemetry->set_sequence(source.sequence);
  telemetry->set_started_unix_ms(source.started_unix_ms);
  telemetry->set_unix_ms(UnixMillis(std::chrono::system_clock::now()));
  telemetry->set_node(std::string(source.name));
  telemetry->set_version(std::string(source.version));
  telemetry->set_role(admin::ROLE_SERVER);
  telemetry->set_state(NodeStateOf(server.state()));
  telemetry->set_service_address(server.endpoint().ToString());
  telemetry->set_admin_address(admin.ToString());
  std::vector<rpc::SlotInfo> slots = server.SlotSnapshot();
  FillSlots(slots, telemetry);
  return slots;
}

void FillSlots(const std::vector<rpc::SlotInfo>& slots, admin::Telemetry* telemetry) {
  for (const rpc::SlotInfo& slot : slots) {
    admin::SlotEntry* e = telemetry->add_slots();
    e->set_slot(slot.slot);
    e->set_client_id(slot.client_id);
    e->set_client_name(slot.client_name);
    e->set_peer(slot.peer);
    e->set_connected_since_unix_ms(UnixMillis(slot.connected_since));
    e->set_requests(slot.requests);
    e->set_busy(slot.busy);
  }
}

void FillThroughput(const base::MethodStats& stats, admin::Throughput* out) {
  out->set_requests_per_s(stats.requests_per_s());
  out->set_errors_per_s(stats.errors_per_s());
  out->set_rejections_per_s(stats.rejections_per_s());
  for (const base::MethodStats::Summary& s : stats.Summaries()) {
    admin::MethodStats* m = out->add_methods();
    m->set_method(s.method);
    m->set_requests(s.requests);
    m->set_errors(s.errors);
    m->set_requests_per_s(s.requests_per_s);
    m->set_errors_per_s(s.errors_per_s);
    m->set_p50_us(s.p50_us);
    m->set_p90_us(s.p90_us);
    m->set_p99_us(s.p99_us);
    m->set_max_us(s.max_us);
  }
}

void FillServerThroughput(const base::MethodStats& stats, const rpc::Server& server,
                          admin::Throughput* out) {
  FillThroughput(stats, out);
  out->set_rejections_per_s(server.RefusalsPerSecond());
}

}  // namespace railyard::node
