// SPDX-License-Identifier: Apache-2.0
// admin_poll_bench: what telemetry costs a node. One node under closed-loop docservice load;
// alternating windows without and with one caller polling admin.Telemetry at --poll-hz (10 by
// default). One JSON line per window, then a summary with the throughput loss.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <vector>

#include "core/base/latency_histogram.h"
#include "core/cluster/admin_client.h"
#include "core/load/load_generator.h"
#include "core/node/node.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;
using namespace railyard;

// Polls a node's telemetry at a fixed rate on its own thread while alive.
class Poller {
 public:
  Poller(rpc::Endpoint admin, double hz) : client_(admin, "", "admin_poll_bench") {
    client_.Connect(std::chrono::seconds(2));
    thread_ = std::thread([this, hz] {
      const auto period =
          std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / hz));
      Clock::time_point next = Clock::now();
      while (!stop_) {
        const Clock::time_point start = Clock::now();
        admin::Telemetry t;
        if (client_.Telemetry(&t).ok()) {
          latency_.Add(Clock::now() - start);
          bytes_ = t.ByteSizeLong();
        }
        next += period;
        std::this_thread::sleep_until(next);
      }
    });
  }
  ~Poller() {
    stop_ = true;
    thread_.join();
  }
  const base::LatencyHistogram& latency() const { return latency_; }
  size_t bytes() const { return bytes_; }

 private:
  cluster::AdminClient client_;
  std::atomic<bool> stop_{false};
  base::LatencyHistogram latency_;
  std::atomic<size_t> bytes_{0};
  std::thread thread_;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"admin_poll_bench: a node's throughput with and without 10 Hz telemetry polling"};
  double window_s = 3;
  int rounds = 4;
  double poll_hz = 10;
  size_t concurrency = 16;
  app.add_option("--window-s", window_s, "Length of each measured window")
      ->check(CLI::Range(0.2, 600.0));
  app.add_option("--rounds", rounds,
                 "Pairs of windows, without and with polling, order alternating")
      ->check(CLI::Range(1, 100));
  app.add_option("--poll-hz", poll_hz, "Telemetry polls per second")
      ->check(CLI::Range(0.1, 1000.0));
  app.add_option("--concurrency", concurrency, "Docservice calls in flight")
      ->check(CLI::Range(1, 1024));
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::warn);

  const fs::path dir =
      fs::temp_directory_path() / ("admin_poll_bench-" + std::to_string(::getpid()));
  node::NodeOptions options;
  options.name = "bench-node";
  options.data_dir = dir.string();
  options.storage.memtable_entries = 50000;  // Indexes and Bloom pages exist, as in real telemetry.
  std::unique_ptr<node::Node> n;
  if (rpc::Status s = node::Node::Open(options, &n); !s.ok()) {
    std::fprintf(stderr, "admin_poll_bench: %s\n", s.ToString().c_str());
    return 1;
  }
  load::LoadOptions load;
  load.servers = {n->endpoint()};
  load.concurrency = concurrency;
  load.read_fraction = 0.8;
  load.keys = 200000;
  load::LoadGenerator generator(load);
  if (rpc::Status s = generator.Start(); !s.ok()) {
    std::fprintf(stderr, "admin_poll_bench: %s\n", s.ToString().c_str());
    return 1;
  }
  std::this_thread::sleep_for(std::chrono::seconds(1));  // Warm up: pools, caches, a flush.

  auto measure = [&](bool polled, int round, double* rps) {
    std::unique_ptr<Poller> poller;
    if (polled) poller = std::make_unique<Poller>(n->admin_endpoint(), poll_hz);
    const uint64_t before = generator.Result().requests;
    const Clock::time_point start = Clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(window_s));
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    *rps = static_cast<double>(generator.Result().requests - before) / seconds;
    std::printf(
        "{\"bench\":\"admin_poll_bench\",\"round\":%d,\"poll_hz\":%.1f,\"requests_per_s\":%.1f",
        round, polled ? poll_hz : 0.0, *rps);
    if (poller) {
      std::printf(
          ",\"polls\":%llu,\"telemetry_bytes\":%zu,\"poll_p50_us\":%.0f,\"poll_p99_us\":%.0f",
          static_cast<unsigned long long>(poller->latency().count()), poller->bytes(),
          poller->latency().PercentileUs(0.5), poller->latency().PercentileUs(0.99));
    }
    std::printf("}\n");
    std::fflush(stdout);
  };
  // Throughput drifts as the store grows; alternating the order (ABBA) cancels a linear drift.
  double baseline = 0, polled = 0;
  for (int round = 0; round < rounds; ++round) {
    for (int i = 0; i < 2; ++i) {
      const bool with_polling = (i == 1) == (round % 2 == 0);
      double rps = 0;
      measure(with_polling, round, &rps);
      (with_polling ? polled : baseline) += rps;
    }
  }
  baseline /= rounds;
  polled /= rounds;
  std::printf(
      "{\"bench\":\"admin_poll_bench\",\"summary\":true,\"baseline_requests_per_s\":%.1f,"
      "\"polled_requests_per_s\":%.1f,\"loss_percent\":%.2f}\n",
      baseline, polled, baseline > 0 ? (1 - polled / baseline) * 100 : 0);
  generator.Stop();
  n->Shutdown(std::chrono::milliseconds(500));
  n.reset();
  std::error_code ec;
  fs::remove_all(dir, ec);
  return 0;
}
