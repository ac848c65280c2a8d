// SPDX-License-Identifier: Apache-2.0
#include "tests/trace/telemetry_fixture.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <random>

#include "core/trace/recording_writer.h"

namespace railyard::trace::testing {
namespace {

uint64_t Fnv1a(const std::string& text, uint64_t extra) {
  uint64_t hash = 14695981039346656037ULL;
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ULL;
  for (int i = 0; i < 8; ++i) hash = (hash ^ ((extra >> (8 * i)) & 0xff)) * 1099511628211ULL;
  return hash;
}

}  // namespace

std::string NodeName(int index) {
  char name[32];
  std::snprintf(name, sizeof(name), "node-%02d", index);
  return name;
}

admin::Telemetry MakeTelemetry(const std::string& node, uint64_t sequence, int64_t unix_ms) {
  std::mt19937_64 rng(Fnv1a(node, sequence));
  auto below = [&rng](uint64_t bound) { return rng() % bound; };
  auto uniform = [&rng]() { return std::uniform_real_distribution<double>(0.0, 1.0)(rng); };

  admin::Telemetry t;
  t.set_sequence(sequence);
  t.set_unix_ms(unix_ms);
  t.set_node(node);
  t.set_version("0.1.0");
  t.set_role(admin::ROLE_BOTH);
  t.set_state(sequence % 97 == 0 ? admin::NODE_LAME_DUCK : admin::NODE_SERVING);
  t.set_service_address(node + ".rack-a.example:7000");
  t.set_admin_address(node + ".rack-a.example:7001");

  for (uint32_t slot = 0; slot < 4; ++slot) {
    admin::SlotEntry* entry = t.add_slots();
    entry->set_slot(slot);
    entry->set_client_id(rng());
    entry->set_client_name("loadgen-" + std::to_string(below(8)));
    entry->set_peer("10.1.0." + std::to_string(below(250)) + ":" +
                    std::to_string(40000 + below(20000)));
    entry->set_connected_since_unix_ms(unix_ms - static_cast<int64_t>(below(3'600'000)));
    entry->set_requests(sequence * 100 + below(100));
    entry->set_busy(below(2) == 0);
  }

  admin::ClientPool* pool = t.add_pools();
  pool->set_client_id(rng());
  pool->set_client_name(node + "/replicator");
  pool->set_capacity(4);
  pool->set_policy("boxcar");
  for (uint32_t i = 0; i < 4; ++i) {
    admin::PoolEntry* entry = pool->add_entries();
    entry->set_server_index(i);
    entry->set_server("node-" + std::to_string(below(20)) + ".rack-a.example:7000");
    entry->set_slot(static_cast<uint32_t>(below(8)));
    entry->set_busy(below(3) == 0);
    entry->set_requests(sequence * 10 + below(10));
  }
  admin::PoolCounters* counters = pool->mutable_counters();
  counters->set_requests(sequence * 40);
  counters->set_retries(below(50));
  counters->set_rejections(below(5));
  counters->set_replacements(below(20));
  counters->set_failures(below(3));
  counters->set_connects(below(100));
  counters->set_connect_failures(below(4));

  admin::StorageStats* storage = t.mutable_storage();
  for (uint64_t i = 0; i < 4; ++i) {
    admin::IndexInfo* index = storage->add_indexes();
    index->set_id(100 - i);
    index->set_entries(100'000 << i);
    index->set_bytes((100'000 << i) * 20);
    index->set_created_unix_ms(unix_ms - static_cast<int64_t>(i * 600'000 + below(600'000)));
    index->set_bloom_bytes((100'000 << i) + below(1000));
    index->set_bloom_pages((100'000 << i) / 4096 + 1);
    index->set_measured_false_positive_rate(0.02 * uniform());
    index->set_p_no(uniform());
  }
  for (uint64_t i = 0; i < 2; ++i) {
    admin::CompactionInfo* compaction = storage->add_compactions();
    compaction->add_inputs(0);
    compaction->add_inputs(97 - i);
    compaction->set_output(99 - i);
    compaction->set_entries_written(below(1'000'000));
    compaction->set_bytes_written(below(20'000'000));
    compaction->set_duration_us(static_cast<int64_t>(below(2'000'000)));
    compaction->set_manual(i == 1);
    compaction->set_finished_unix_ms(unix_ms - static_cast<int64_t>(below(3'600'000)));
  }
  for (uint32_t page = 0; page < 16; ++page) {
    admin::BloomPage* bloom = storage->add_bloom_pages();
    bloom->set_index(100 - page % 4);
    bloom->set_page(page);
    bloom->set_recent_requests(1000.0 * uniform());
    bloom->set_p_no(uniform());
    bloom->set_usefulness(bloom->recent_requests() * bloom->p_no());
    bloom->set_resident(page < 10);
  }
  storage->set_memtable_entries(below(100'000));
  storage->set_memtable_capacity(100'000);
  storage->set_index_entry_writes(sequence * 1000);
  storage->set_bloom_budget_bytes(1 << 20);
  storage->set_bloom_resident_bytes(below(1 << 20));
  storage->set_reads(sequence * 700);
  storage->set_writes(sequence * 300);
  storage->set_deletes(sequence * 10);
  storage->set_write_stalls(below(10));
  storage->set_stall_time_us(static_cast<int64_t>(below(100'000)));
  storage->set_segment_bytes(sequence * 300 * 1024);
  storage->set_dead_byte_share(0.3 * uniform());

  admin::Throughput* throughput = t.mutable_throughput();
  throughput->set_requests_per_s(1000.0 + 100.0 * uniform());
  throughput->set_errors_per_s(uniform());
  throughput->set_rejections_per_s(0.1 * uniform());
  for (const char* method : {"docservice.Get", "docservice.Put", "docservice.Delete"}) {
    admin::MethodStats* stats = throughput->add_methods();
    stats->set_method(method);
    stats->set_requests(sequence * 300 + below(300));
    stats->set_errors(below(20));
    stats->set_requests_per_s(300.0 * uniform());
    stats->set_errors_per_s(uniform());
    stats->set_p50_us(100.0 + 50.0 * uniform());
    stats->set_p90_us(stats->p50_us() * 2);
    stats->set_p99_us(stats->p50_us() * 5);
    stats->set_max_us(stats->p50_us() * 20);
  }
  return t;
}

int ClusterShape::LatestAt(int node, int64_t unix_ms) const {
  const int64_t since_first = unix_ms - TimeOf(node, 0);
  if (since_first < 0) return -1;
  return static_cast<int>(std::min<int64_t>(since_first / 1000, SnapshotsOf(node) - 1));
}

int64_t ClusterShape::TotalSnapshots() const {
  int64_t total = 0;
  for (int node = 0; node < nodes; ++node) total += SnapshotsOf(node);
  return total;
}

Status WriteClusterRecording(const std::string& path, const ClusterShape& shape) {
  WriterOptions options;
  options.error_if_exists = true;
  options.writer = "railyard tests/trace fixture";
  std::unique_ptr<RecordingWriter> writer;
  if (Status status = RecordingWriter::Create(path, options, &writer); !status.ok()) return status;
  // Second by second, then node by node, as a recorder polling the cluster would.
  for (int k = 0; k < shape.seconds; ++k) {
    for (int node = 0; node < shape.nodes; ++node) {
      if (k >= shape.SnapshotsOf(node)) continue;
      const std::string name = NodeName(node);
      const admin::Telemetry telemetry =
          MakeTelemetry(name, static_cast<uint64_t>(k) + 1, shape.TimeOf(node, k));
      if (Status status = writer->AppendSnapshot(name, telemetry); !status.ok()) return status;
    }
  }
  return writer->Close();
}

}  // namespace railyard::trace::testing
