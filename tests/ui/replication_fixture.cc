// SPDX-License-Identifier: Apache-2.0
#include "tests/ui/replication_fixture.h"

#include <memory>

#include "core/trace/recording_writer.h"
#include "core/trace/telemetry_recorder.h"

namespace railyard::ui::testing {

std::string GeneratedReplication::NodeName(int node) {
  switch (node) {
    case kUpdater:
      return "updater";
    case kCatchingUp:
      return "replica-a";
    default:
      return "replica-b";
  }
}

std::string GeneratedReplication::ServiceAddress(int node) {
  return "10.0.0." + std::to_string(node + 1) + ":7000";
}

uint64_t GeneratedReplication::LagDocs(int node, int frame) {
  if (node == kCatchingUp) return 80000 - 400 * uint64_t(frame);
  if (node == kTailing) return 120 + uint64_t(frame % 5);
  return 0;
}

double GeneratedReplication::LagSeconds(int node, int frame) {
  if (node == kCatchingUp) return 30.0 - 0.1 * frame;
  if (node == kTailing) return 0.4;
  return 0;
}

double GeneratedReplication::CatchUpProgress(int frame) {
  return double(500 * frame) / 80000.0;  // Applied since the catch-up began / behind then.
}

admin::Telemetry GeneratedReplication::Telemetry(int node, int frame) const {
  admin::Telemetry t;
  const int64_t now = TimeOf(frame);
  t.set_sequence(uint64_t(frame) + 1);
  t.set_unix_ms(now);
  t.set_node(NodeName(node));
  t.set_version("0.1.0");
  t.set_role(admin::ROLE_SERVER);
  t.set_state(admin::NODE_SERVING);
  t.set_service_address(ServiceAddress(node));
  t.set_admin_address("10.0.0." + std::to_string(node + 1) + ":7001");
  t.mutable_throughput()->set_requests_per_s(500);

  admin::DocCache* cache = t.mutable_storage()->mutable_cache();
  cache->set_budget_bytes(64 << 20);
  cache->set_bytes(uint64_t(12) << 20);
  cache->set_entries(3000);
  cache->set_hits(CacheHits(frame));
  cache->set_misses(CacheMisses(frame));

  admin::Replication* r = t.mutable_replication();
  const uint64_t head_docs = HeadDocs(frame);
  r->set_head_docs(head_docs);
  r->set_head_position(head_docs * 200);
  if (node == kUpdater) {
    r->set_role(admin::DOCSTORE_UPDATER);
    r->set_applied_docs(head_docs);
    r->set_applied_position(head_docs * 200);
    for (int replica : {kCatchingUp, kTailing}) {
      admin::Follower* f = r->add_followers();
      f->set_name(NodeName(replica));
      f->set_address(ServiceAddress(replica));
      f->set_peer("10.0.0." + std::to_string(replica + 1) + ":41000");
      f->set_lag_docs(LagDocs(replica, frame));
      f->set_position((head_docs - f->lag_docs()) * 200);
      f->set_lag_bytes(f->lag_docs() * 200);
      f->set_lag_seconds(LagSeconds(replica, frame));
      f->set_last_fetch_unix_ms(now - 50);
      f->set_state(replica == kCatchingUp ? "catching up" : "tailing");
      f->set_lag_known(true);
    }
    return t;
  }
  r->set_role(admin::DOCSTORE_REPLICA);
  r->set_updater(ServiceAddress(kUpdater));
  const uint64_t lag = LagDocs(node, frame);
  r->set_state(node == kCatchingUp ? admin::REPLICA_CATCHING_UP : admin::REPLICA_TAILING);
  r->set_applied_docs(head_docs - lag);
  r->set_applied_position((head_docs - lag) * 200);
  r->set_lag_docs(lag);
  r->set_lag_bytes(lag * 200);
  r->set_lag_seconds(LagSeconds(node, frame));
  r->set_lag_known(true);  // Catching up or tailing: connected.
  if (node == kCatchingUp) {
    r->set_catch_up_progress(CatchUpProgress(frame));
    r->set_apply_docs_per_s(5000);
    r->set_refetches(2);
    r->set_last_error(kCatchUpError);
  } else {
    r->set_apply_docs_per_s(1000);
  }
  r->set_last_contact_unix_ms(now - 20);
  return t;
}

trace::Status WriteReplicationRecording(const std::string& path,
                                        const GeneratedReplication& cluster, int frames) {
  std::unique_ptr<trace::RecordingWriter> writer;
  trace::WriterOptions options;
  options.writer = "tests/ui replication_fixture";
  options.error_if_exists = true;
  if (trace::Status s = trace::RecordingWriter::Create(path, options, &writer); !s.ok()) return s;
  trace::TelemetryRecorder recorder(writer.get());
  for (int f = 0; f < frames; ++f) {
    for (int n = 0; n < GeneratedReplication::kNodes; ++n) {
      if (trace::Status s =
              recorder.Record(GeneratedReplication::NodeName(n), cluster.Telemetry(n, f));
          !s.ok()) {
        return s;
      }
    }
  }
  return writer->Close();
}

}  // namespace railyard::ui::testing
