// SPDX-License-Identifier: Apache-2.0
#include "core/node/config.h"

#include <optional>

#include "core/cluster/cluster_file.h"
#include "core/cluster/text_files.h"

namespace railyard::node {

namespace {

rpc::Status ParseListen(const std::string& text, const std::string& what, std::string* host,
                        uint16_t* port) {
  if (text.empty()) return rpc::Status::Ok();
  const std::optional<rpc::Endpoint> endpoint = rpc::ParseListenAddress(text);
  if (!endpoint) {
    return {rpc::Code::kInvalidArgument, what + " must be host:port, got '" + text + "'"};
  }
  *host = endpoint->host;
  *port = endpoint->port;
  return rpc::Status::Ok();
}

}  // namespace

rpc::Status TlsOptionsFrom(const config::TlsConfig& c, const std::string& what,
                           std::optional<rpc::TlsServerOptions>* out) {
  out->reset();
  if (c.cert_file().empty() && c.key_file().empty() && c.client_ca_file().empty()) {
    return rpc::Status::Ok();
  }
  if (c.cert_file().empty() || c.key_file().empty()) {
    return {rpc::Code::kInvalidArgument, what + " needs both cert_file and key_file"};
  }
  rpc::TlsServerOptions tls;
  tls.cert_file = c.cert_file();
  tls.key_file = c.key_file();
  tls.client_ca_file = c.client_ca_file();
  tls.require_client_cert = !c.has_require_client_cert() || c.require_client_cert();
  *out = std::move(tls);
  return rpc::Status::Ok();
}

rpc::Status LoadNodeConfig(const std::string& path, config::NodeConfig* out) {
  return cluster::ParseTextProtoFile(path, out);
}

namespace {

rpc::Status ReplicationFrom(const config::NodeConfig& c, ReplicationOptions* r) {
  if (c.role().empty() || c.role() == "updater") {
    r->replica = false;
  } else if (c.role() == "replica") {
    r->replica = true;
  } else {
    return {rpc::Code::kInvalidArgument, "role must be updater or replica, got '" + c.role() + "'"};
  }
  r->follow = c.follow();
  if (r->replica && r->follow.empty()) {
    return {rpc::Code::kInvalidArgument,
            "a replica needs the updater's docservice address: follow (--follow HOST:PORT)"};
  }
  if (!r->replica && !r->follow.empty()) {
    return {rpc::Code::kInvalidArgument, "follow is for replicas: give role replica too"};
  }
  if (!r->follow.empty() && !rpc::ParseEndpoint(r->follow)) {
    return {rpc::Code::kInvalidArgument, "follow must be host:port, got '" + r->follow + "'"};
  }
  if (rpc::Status s = cluster::ReadTokenFile(c.replication_token_file(), &r->tokens); !s.ok()) {
    return s;
  }
  if (c.has_follow_tls()) r->follow_tls = cluster::ClientTlsFrom(c.follow_tls());
  const bool has_certificate = r->follow_tls && !r->follow_tls->cert_file.empty();
  if (r->replica && r->tokens.empty() && !has_certificate) {
    return {rpc::Code::kInvalidArgument,
            "a replica needs a credential its updater accepts: replication_token_file "
            "(--replication-token-file), or a client certificate in follow_tls"};
  }
  return rpc::Status::Ok();
}

rpc::Status MonitoringFrom(const config::NodeConfig& c, std::optional<MonitoringOptions>* out) {
  out->reset();
  if (c.metrics_listen().empty()) {
    if (c.has_metrics_tls() || !c.metrics_token_file().empty()) {
      return {rpc::Code::kInvalidArgument,
              "metrics_tls and metrics_token_file need metrics_listen (--metrics-listen)"};
    }
    return rpc::Status::Ok();
  }
  MonitoringOptions m;
  if (rpc::Status s = ParseListen(c.metrics_listen(), "metrics_listen", &m.host, &m.port);
      !s.ok()) {
    return s;
  }
  if (rpc::Status s = TlsOptionsFrom(c.metrics_tls(), "metrics_tls", &m.tls); !s.ok()) return s;
  if (rpc::Status s = cluster::ReadTokenFile(c.metrics_token_file(), &m.tokens); !s.ok()) return s;
  *out = std::move(m);
  return rpc::Status::Ok();
}

}  // namespace

rpc::Status NodeOptionsFrom(const config::NodeConfig& c, NodeOptions* o) {
  if (!c.name().empty()) o->name = c.name();
  o->data_dir = c.data_dir();
  if (rpc::Status s = ParseListen(c.listen(), "listen", &o->host, &o->port); !s.ok()) return s;
  if (rpc::Status s = ParseListen(c.admin_listen(), "admin_listen", &o->admin.host, &o->admin.port);
      !s.ok()) {
    return s;
  }
  o->io_threads = c.io_threads();
  o->worker_threads = c.worker_threads();
  if (c.request_threads().empty() || c.request_threads() == "io") {
    o->doc_dispatch = rpc::Dispatch::kInline;
  } else if (c.request_threads() == "workers") {
    o->doc_dispatch = rpc::Dispatch::kWorkerPool;
  } else {
    return {rpc::Code::kInvalidArgument,
            "request_threads must be io or workers, got '" + c.request_threads() + "'"};
  }
  const config::StorageConfig& st = c.storage();
  if (st.sync() == "none") {
    o->storage.sync = storage::SyncPolicy::kNone;
  } else if (st.sync().empty() || st.sync() == "interval") {
    o->storage.sync = storage::SyncPolicy::kInterval;
  } else if (st.sync() == "every-write") {
    o->storage.sync = storage::SyncPolicy::kEveryWrite;
  } else {
    return {rpc::Code::kInvalidArgument,
            "storage.sync must be none, interval or every-write, got '" + st.sync() + "'"};
  }
  if (st.sync_interval_ms())
    o->storage.sync_interval = std::chrono::milliseconds(st.sync_interval_ms());
  if (st.memtable_entries()) o->storage.memtable_entries = st.memtable_entries();
  if (c.has_flight_recorder_mib()) {
    o->flight.enabled = c.flight_recorder_mib() > 0;
    o->flight.memory_budget_bytes = size_t{c.flight_recorder_mib()} << 20;
  }
  if (st.bloom_budget_bytes()) o->storage.bloom_memory_budget = st.bloom_budget_bytes();
  if (st.segment_bytes()) o->storage.segment_bytes = st.segment_bytes();
  o->admin.viewer_tokens.assign(c.viewer_tokens().begin(), c.viewer_tokens().end());
  o->admin.operator_tokens.assign(c.operator_tokens().begin(), c.operator_tokens().end());
  if (rpc::Status s = cluster::ReadTokenFile(c.viewer_token_file(), &o->admin.viewer_tokens);
      !s.ok())
    return s;
  if (rpc::Status s = cluster::ReadTokenFile(c.operator_token_file(), &o->admin.operator_tokens);
      !s.ok())
    return s;
  if (rpc::Status s =
          cluster::ReadTokenFile(c.data_reader_token_file(), &o->data_access.reader_tokens);
      !s.ok())
    return s;
  if (rpc::Status s =
          cluster::ReadTokenFile(c.data_writer_token_file(), &o->data_access.writer_tokens);
      !s.ok())
    return s;
  // Off unless asked for: measured over a store four times the node's memory, the page cache
  // keeps the hot documents as well, and the cache cost 5-31% of reads (docs/benchmarks.md).
  o->storage.doc_cache_bytes = st.has_doc_cache_bytes() ? st.doc_cache_bytes() : 0;
  o->storage.seal_after =
      std::chrono::milliseconds(st.has_seal_after_ms() ? st.seal_after_ms() : 20);
  if (rpc::Status s = ReplicationFrom(c, &o->replication); !s.ok()) return s;
  if (rpc::Status s = TlsOptionsFrom(c.tls(), "tls", &o->tls); !s.ok()) return s;
  if (rpc::Status s = TlsOptionsFrom(c.admin_tls(), "admin_tls", &o->admin.tls); !s.ok()) return s;
  return MonitoringFrom(c, &o->monitoring);
}

}  // namespace railyard::node
