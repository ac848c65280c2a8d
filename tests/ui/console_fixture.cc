// SPDX-License-Identifier: Apache-2.0
#include "tests/ui/console_fixture.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "core/trace/recording_writer.h"

namespace railyard::ui::testing {

std::string GeneratedCluster::NodeName(int node) {
  char name[16];
  std::snprintf(name, sizeof(name), "n%03d", node);
  return name;
}

std::string GeneratedCluster::ClientName(int client) {
  char name[24];
  std::snprintf(name, sizeof(name), "client-%03d", client);
  return name;
}

std::string GeneratedCluster::ServiceAddress(int node) {
  return "10.0." + std::to_string(node / 250) + "." + std::to_string(node % 250) + ":7000";
}

std::vector<int> GeneratedCluster::ServersOf(int client, int frame) const {
  // A spread-out subset, like deterministic subsetting, then slow drift: each swap moves one
  // client's first connection to the next server.
  std::vector<int> servers;
  const int size = std::min(pool_size, nodes);
  const int swaps = frames_per_swap > 0 ? frame / frames_per_swap : 0;
  // How many times this client's first connection has moved by `frame`.
  const int moves = clients > 0 ? (swaps + clients - 1 - client) / clients : 0;
  for (int k = 0; k < size; ++k) {
    int s = (client * 7 + k * std::max(1, nodes / size)) % nodes;
    if (k == 0) s = (s + moves) % nodes;
    // Keep the subset free of duplicates.
    while (std::find(servers.begin(), servers.end(), s) != servers.end()) s = (s + 1) % nodes;
    servers.push_back(s);
  }
  return servers;
}

std::vector<std::vector<int>> GeneratedCluster::Assignment(int frame) const {
  std::vector<std::vector<int>> by_server(static_cast<size_t>(nodes));
  for (int c = 0; c < clients; ++c) {
    for (int s : ServersOf(c, frame)) by_server[static_cast<size_t>(s)].push_back(c);
  }
  return by_server;
}

namespace {

std::vector<uint32_t> SlotIn(const std::vector<int>& served, int client) {
  const auto it = std::find(served.begin(), served.end(), client);
  if (it == served.end()) return {};
  return {static_cast<uint32_t>(it - served.begin())};
}

}  // namespace

std::vector<uint32_t> GeneratedCluster::SlotsOf(int client, int node, int frame) const {
  return SlotIn(Assignment(frame)[static_cast<size_t>(node)], client);
}

admin::Telemetry GeneratedCluster::Telemetry(int node, int frame, bool lame_duck) const {
  return Telemetry(node, frame, lame_duck, Assignment(frame));
}

admin::Telemetry GeneratedCluster::Telemetry(
    int node, int frame, bool lame_duck, const std::vector<std::vector<int>>& assignment) const {
  admin::Telemetry t;
  const int64_t now = TimeOf(frame);
  t.set_sequence(static_cast<uint64_t>(frame) + 1);
  t.set_unix_ms(now);
  t.set_node(NodeName(node));
  t.set_version("0.1.0");
  t.set_role(admin::ROLE_BOTH);
  t.set_state(lame_duck ? admin::NODE_LAME_DUCK : admin::NODE_SERVING);
  t.set_service_address(ServiceAddress(node));
  t.set_admin_address("10.0." + std::to_string(node / 250) + "." + std::to_string(node % 250) +
                      ":7001");
  // The slot table: one slot per client connected, lowest first.
  const std::vector<int>& served = assignment[static_cast<size_t>(node)];
  for (size_t slot = 0; slot < served.size(); ++slot) {
    const int c = served[slot];
    admin::SlotEntry* e = t.add_slots();
    e->set_slot(static_cast<uint32_t>(slot));
    e->set_client_id(ClientId(c));
    e->set_client_name(ClientName(c));
    e->set_peer("10.1.0." + std::to_string(c % 250) + ":" + std::to_string(40000 + c));
    e->set_connected_since_unix_ms(start_unix_ms - 60000 + c * 10);
    e->set_requests(static_cast<uint64_t>(frame) * 10 + static_cast<uint64_t>(c));
    e->set_busy((c + frame + node) % 3 == 0);
  }
  // Clients run beside the servers: node n hosts the clients c with c % nodes == n.
  for (int c = node; c < clients; c += std::max(1, nodes)) {
    admin::ClientPool* pool = t.add_pools();
    pool->set_client_id(ClientId(c));
    pool->set_client_name(ClientName(c));
    pool->set_capacity(static_cast<uint32_t>(pool_size));
    pool->set_policy("lowest-slot");
    const std::vector<int> servers = ServersOf(c, frame);
    for (size_t k = 0; k < servers.size(); ++k) {
      admin::PoolEntry* e = pool->add_entries();
      e->set_server_index(static_cast<uint32_t>(servers[k]));
      // The server's own service address, so every pooled server is a watched node's column
      // (beyond 250 nodes too).
      e->set_server(ServiceAddress(servers[k]));
      const std::vector<uint32_t> slot = SlotIn(assignment[static_cast<size_t>(servers[k])], c);
      e->set_slot(slot.empty() ? 0 : slot[0]);
      e->set_busy((c + frame + servers[k]) % 3 == 0);
      e->set_requests(static_cast<uint64_t>(frame) * 10);
    }
    pool->mutable_counters()->set_requests(static_cast<uint64_t>(frame) * 100);
  }
  // Storage: a few indexes growing with time, their Bloom pages, recent compactions.
  admin::StorageStats* storage = t.mutable_storage();
  const int indexes = 3 + (frame / 30 + node) % 4;
  for (int i = 0; i < indexes; ++i) {
    admin::IndexInfo* index = storage->add_indexes();
    index->set_id(static_cast<uint64_t>(100 + frame / 30 * 4 + indexes - i));
    index->set_entries(static_cast<uint64_t>(20000) << i);
    index->set_bytes(index->entries() * 24);
    index->set_created_unix_ms(now - 1000 * (i + 1));
    index->set_bloom_bytes(index->entries() * 10 / 8);
    index->set_bloom_pages(static_cast<uint64_t>(bloom_pages_per_index));
    index->set_measured_false_positive_rate(0.01);
    index->set_p_no(1.0 - 1.0 / (i + 2));
    for (int p = 0; p < bloom_pages_per_index; ++p) {
      admin::BloomPage* page = storage->add_bloom_pages();
      page->set_index(index->id());
      page->set_page(static_cast<uint32_t>(p));
      page->set_recent_requests(double((p * 7 + frame + node) % 50));
      page->set_p_no(index->p_no());
      page->set_usefulness(page->recent_requests() * page->p_no());
      page->set_resident((p + i) % 3 != 0);
    }
  }
  // A compaction every 3 s per node (staggered); the last three are listed, oldest first.
  const int period = std::max(1, 3000 / std::max(1, frame_ms));
  const int done = (frame + period - node % period) / period;  // Compactions finished so far.
  for (int m = std::max(0, done - 3); m < done; ++m) {
    admin::CompactionInfo* c = storage->add_compactions();
    c->add_inputs(0);
    c->add_inputs(static_cast<uint64_t>(90 + m));
    c->set_output(static_cast<uint64_t>(91 + m));
    c->set_entries_written(40000 + static_cast<uint64_t>(m % 5) * 1000);
    c->set_bytes_written(c->entries_written() * 24);
    c->set_duration_us(120000);
    c->set_manual(m % 4 == 3);
    c->set_finished_unix_ms(TimeOf(m * period + node % period));
  }
  storage->set_memtable_entries(static_cast<uint64_t>((frame * 137 + node * 31) % 20000));
  storage->set_memtable_capacity(20000);
  storage->set_bloom_budget_bytes(8 << 20);
  storage->set_bloom_resident_bytes(static_cast<uint64_t>((4 + node % 4)) << 20);
  storage->set_reads(static_cast<uint64_t>(frame) * 900);
  storage->set_writes(static_cast<uint64_t>(frame) * 100);
  // Throughput.
  admin::Throughput* throughput = t.mutable_throughput();
  const double rate = 1000.0 + 10.0 * ((node * 13 + frame) % 40);
  throughput->set_requests_per_s(rate);
  throughput->set_errors_per_s(node % 10 == 0 ? 2.5 : 0.0);
  throughput->set_rejections_per_s(0);
  for (const char* method : {"doc.Get", "doc.Put"}) {
    admin::MethodStats* m = throughput->add_methods();
    m->set_method(method);
    m->set_requests(static_cast<uint64_t>(frame) * 100);
    m->set_requests_per_s(rate / 2);
    m->set_p50_us(150 + node % 7 * 10);
    m->set_p90_us(300);
    m->set_p99_us(800 + 10 * (node % 50));
    m->set_max_us(5000);
  }
  return t;
}

trace::Status WriteGeneratedRecording(const std::string& path, const GeneratedCluster& cluster,
                                      int frames) {
  std::unique_ptr<trace::RecordingWriter> writer;
  trace::WriterOptions options;
  options.writer = "tests/ui console_fixture";
  options.error_if_exists = true;
  options.commit_every_rows = 5000;
  if (trace::Status s = trace::RecordingWriter::Create(path, options, &writer); !s.ok()) return s;
  const int drain_at = frames / 3, undrain_at = 2 * frames / 3, compact_at = frames / 2;
  for (int f = 0; f < frames; ++f) {
    const std::vector<std::vector<int>> assignment = cluster.Assignment(f);
    for (int n = 0; n < cluster.nodes; ++n) {
      const bool lame = n == 1 && f >= drain_at && f < undrain_at;
      if (trace::Status s = writer->AppendSnapshot(GeneratedCluster::NodeName(n),
                                                   cluster.Telemetry(n, f, lame, assignment));
          !s.ok()) {
        return s;
      }
    }
    const std::string n1 = GeneratedCluster::NodeName(std::min(1, cluster.nodes - 1));
    if (f == drain_at) writer->AppendEvent(cluster.TimeOf(f), n1, "drain", "operator -> OK");
    if (f == compact_at) {
      writer->AppendEvent(cluster.TimeOf(f), GeneratedCluster::NodeName(0), "compact",
                          "indexes all -> OK");
    }
    if (f == undrain_at) writer->AppendEvent(cluster.TimeOf(f), n1, "undrain", "operator -> OK");
  }
  return writer->Close();
}

}  // namespace railyard::ui::testing
