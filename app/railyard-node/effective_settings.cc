// SPDX-License-Identifier: Apache-2.0
#include "app/railyard-node/effective_settings.h"

#include "core/base/usable_cores.h"
#include "core/rpc/server.h"
#include "core/rpc/tls.h"

namespace {

// "file F (N tokens)", "N inline" or "none": where tokens come from, never what they are.
std::string TokenSource(const std::string& file, size_t count) {
  const std::string n = std::to_string(count) + (count == 1 ? " token" : " tokens");
  if (!file.empty()) return "file " + file + " (" + n + ")";
  return count == 0 ? "none" : n + " inline";
}

// "2 usable cores", "1 usable core": what the default thread count was taken from.
std::string UsableCoresText() {
  const size_t cores = railyard::base::UsableCores();
  return std::to_string(cores) + (cores == 1 ? " usable core" : " usable cores");
}

}  // namespace

std::string DescribeEffectiveSettings(const railyard::node::NodeOptions& o,
                                      const railyard::config::NodeConfig& c,
                                      std::chrono::milliseconds grace) {
  namespace rpc = railyard::rpc;
  const auto& s = o.storage;
  std::string sync(railyard::storage::SyncPolicyName(s.sync));
  if (s.sync == railyard::storage::SyncPolicy::kInterval) {
    sync += " every " + std::to_string(s.sync_interval.count()) + " ms";
  }
  const auto& r = o.replication;
  std::string role = "updater";
  if (r.replica) {
    role = "replica of " + r.follow + (r.follow_tls ? " (TLS)" : " (plain TCP)");
  }
  const size_t replication_tokens = c.replication_token_file().empty() ? 0 : r.tokens.size();
  return "settings: name " + o.name + "; listen " + o.host + ":" + std::to_string(o.port) + " (" +
         rpc::DescribeServerTls(o.tls) + "); admin " + o.admin.host + ":" +
         std::to_string(o.admin.port) + " (" + rpc::DescribeServerTls(o.admin.tls) +
         "); data_dir " + o.data_dir + "; sync " + sync + "; role " + role +
         "; viewer tokens: " + TokenSource(c.viewer_token_file(), o.admin.viewer_tokens.size()) +
         "; operator tokens: " +
         TokenSource(c.operator_token_file(), o.admin.operator_tokens.size()) +
         "; replication tokens: " + TokenSource(c.replication_token_file(), replication_tokens) +
         "; docservice reader tokens: " +
         TokenSource(c.data_reader_token_file(), o.data_access.reader_tokens.size()) +
         "; writer tokens: " +
         TokenSource(c.data_writer_token_file(), o.data_access.writer_tokens.size()) + "; grace " +
         std::to_string(grace.count()) + " ms; memtable " + std::to_string(s.memtable_entries) +
         " entries; doc cache " +
         (s.doc_cache_bytes ? std::to_string(s.doc_cache_bytes >> 20) + " MiB"
                            : std::string("off")) +
         "; threads: io " +
         (o.io_threads ? std::to_string(o.io_threads)
                       : std::to_string(railyard::node::DefaultNodeIoThreads()) + " (half of " +
                             UsableCoresText() + ")") +
         ", workers " +
         std::to_string(o.worker_threads ? o.worker_threads : rpc::kDefaultWorkerThreads) +
         "; calls run on " +
         (o.doc_dispatch == rpc::Dispatch::kInline ? "the io threads (waits on workers)"
                                                   : "workers") +
         "; log level " + (c.log_level().empty() ? std::string("info") : c.log_level()) +
         (c.log_file().empty() ? std::string() : ", also to " + c.log_file());
}
