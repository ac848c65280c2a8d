// SPDX-License-Identifier: Apache-2.0
// Writes tests/data/console_small.rec: 3 s of a real local cluster (3 nodes, 2 load clients) at
// 10 Hz, with node1 drained at 1 s and undrained at 2 s and node0 flushed at 1.5 s. Run by hand
// when the telemetry format changes: make_console_recording OUT.rec
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "core/cluster/admin_client.h"
#include "core/load/demo_cluster.h"
#include "core/trace/recording_writer.h"

using namespace railyard;

int main(int argc, char** argv) {
  // An option is never a file name: `--help` once wrote a recording named "--help".
  if (argc != 2 || argv[1][0] == '-') {
    const bool help = argc == 2 && std::string(argv[1]) == "--help";
    std::fprintf(help ? stdout : stderr, "usage: %s OUT.rec\n", argv[0]);
    return help ? 0 : 2;
  }
  const std::string token = "make-console-recording";
  load::DemoClusterOptions options;
  options.clients = 2;
  options.pool_size = 4;
  options.concurrency = 3;
  options.memtable_entries = 2000;
  options.operator_tokens = {token};
  load::DemoCluster cluster;
  if (rpc::Status s = cluster.Start(options); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  std::vector<std::unique_ptr<cluster::AdminClient>> admins;
  for (const rpc::Endpoint& e : cluster.AdminEndpoints()) {
    admins.push_back(std::make_unique<cluster::AdminClient>(e, token, "make-console-recording"));
    if (rpc::Status s = admins.back()->Connect(std::chrono::seconds(5)); !s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      return 1;
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // Pools settle.
  std::unique_ptr<trace::RecordingWriter> writer;
  trace::WriterOptions writer_options;
  writer_options.writer = "tests/ui make_console_recording";
  writer_options.error_if_exists = true;
  if (trace::Status s = trace::RecordingWriter::Create(argv[1], writer_options, &writer); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  std::map<size_t, int64_t> seen;
  const auto start = std::chrono::steady_clock::now();
  for (int round = 0; round < 30; ++round) {
    std::this_thread::sleep_until(start + std::chrono::milliseconds(100 * round));
    admin::AdminResponse response;
    if (round == 10) admins[1]->Drain(&response);
    if (round == 15) admins[0]->Flush(&response);
    if (round == 20) admins[1]->Undrain(&response);
    for (size_t i = 0; i < admins.size(); ++i) {
      admin::Telemetry t;
      if (!admins[i]->Telemetry(&t).ok()) continue;
      writer->AppendSnapshot(t.node(), t);
      for (const admin::CommandEvent& e : t.recent_commands()) {
        if (e.unix_ms() <= seen[i]) continue;
        seen[i] = e.unix_ms();
        writer->AppendEvent(e.unix_ms(), t.node(), e.command(), e.by() + " -> " + e.result());
      }
    }
  }
  admins.clear();
  cluster.Stop();
  if (trace::Status s = writer->Close(); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
