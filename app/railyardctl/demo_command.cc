#include "app/railyardctl/demo_command.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <asio.hpp>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/rpc/client.h"
#include "core/rpc/closed_loop_load.h"
#include "core/rpc/server.h"

namespace railyard::ctl {
namespace {

using rpc::Client;
using rpc::ClosedLoopLoad;
using rpc::Server;
using Clock = std::chrono::steady_clock;

constexpr char kMethod[] = "demo.Work";

std::string ClientLabel(uint64_t client_id, const std::vector<std::unique_ptr<Client>>& clients) {
  for (size_t i = 0; i < clients.size(); ++i) {
    if (clients[i]->client_id() == client_id) return "c" + std::to_string(i);
  }
  return "?";  // Someone else's connection.
}

void PrintTables(const std::vector<std::unique_ptr<Server>>& servers,
                 const std::vector<std::unique_ptr<Client>>& clients,
                 std::vector<uint64_t>& last_requests, double seconds, double elapsed_s,
                 bool redraw) {
  if (redraw) std::printf("\033[H\033[2J");
  std::printf("Railyard demo: %zu servers, %zu clients on loopback, %.0f s (Ctrl-C to stop)\n\n",
              servers.size(), clients.size(), elapsed_s);
  std::printf("%-10s %-9s %9s %10s  %s\n", "server", "state", "req/s", "requests",
              "slots (slot:client, * busy)");
  for (size_t i = 0; i < servers.size(); ++i) {
    const rpc::ServerCounters counters = servers[i]->counters();
    const double rate = static_cast<double>(counters.requests - last_requests[i]) / seconds;
    last_requests[i] = counters.requests;
    std::string slots;
    for (const rpc::SlotInfo& slot : servers[i]->SlotSnapshot()) {
      slots += std::to_string(slot.slot) + ":" + ClientLabel(slot.client_id, clients) +
               (slot.busy ? "* " : " ");
    }
    std::printf("%-10s %-9s %9.0f %10llu  %s\n", servers[i]->name().c_str(),
                std::string(rpc::ServerStateName(servers[i]->state())).c_str(), rate,
                static_cast<unsigned long long>(counters.requests), slots.c_str());
  }
  std::printf("\n%-7s %5s %9s %8s %8s %8s  %s\n", "client", "pool", "requests", "retries",
              "rejects", "swaps", "pool (server/slot, best first)");
  for (size_t i = 0; i < clients.size(); ++i) {
    const rpc::PoolSnapshot pool = clients[i]->Snapshot();
    std::string entries;
    for (const rpc::PoolEntrySnapshot& e : pool.entries) {
      entries += "s" + std::to_string(e.server) + "/" + std::to_string(e.slot) + " ";
    }
    std::printf("c%-6zu %2zu/%-2zu %9llu %8llu %8llu %8llu  %s\n", i, pool.entries.size(),
                pool.capacity, static_cast<unsigned long long>(pool.counters.requests),
                static_cast<unsigned long long>(pool.counters.retries),
                static_cast<unsigned long long>(pool.counters.rejections),
                static_cast<unsigned long long>(pool.counters.replacements), entries.c_str());
  }
  std::fflush(stdout);
}

}  // namespace

CLI::App* AddDemoCommand(CLI::App& app, DemoOptions& o) {
  CLI::App* demo = app.add_subcommand(
      "demo", "Run servers and load clients on loopback and watch Boxcar balance them");
  demo->add_option("--servers", o.servers, "Number of servers")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  demo->add_option("--clients", o.clients, "Number of clients")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  demo->add_option("--concurrency", o.concurrency, "Concurrent callers per client")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  demo->add_option("--pool-size", o.pool_size, "Connections per client pool")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  demo->add_option("--service-time-us", o.service_time_us, "Work per request on a server")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  demo->add_option("--slow-factor", o.slow_factor, "The last server is this many times slower")
      ->check(CLI::Range(1.0, 100.0))
      ->capture_default_str();
  demo->add_option("--interval-ms", o.interval_ms, "Refresh interval")
      ->check(CLI::Range(100, 60000))
      ->capture_default_str();
  demo->add_option("--duration-s", o.duration_s, "Stop after this long (0: until Ctrl-C)")
      ->check(CLI::Range(0, 86400))
      ->capture_default_str();
  return demo;
}

int RunDemo(const DemoOptions& o) {
  std::vector<std::unique_ptr<Server>> servers;
  std::vector<rpc::Endpoint> endpoints;
  for (size_t i = 0; i < o.servers; ++i) {
    rpc::ServerOptions options;
    options.name = "server-" + std::to_string(i);
    options.io_threads = 1;
    auto server = std::make_unique<Server>(options);
    const bool slow = o.servers > 1 && i + 1 == o.servers;
    const auto work = std::chrono::microseconds(
        static_cast<int64_t>(o.service_time_us * (slow ? o.slow_factor : 1.0)));
    server->RegisterHandler(kMethod, [work](const rpc::CallContext&, std::string_view payload) {
      std::this_thread::sleep_for(work);
      return rpc::Reply{{}, std::string(payload)};
    });
    if (const rpc::Status status = server->Start(); !status.ok()) {
      std::fprintf(stderr, "railyardctl demo: %s\n", status.ToString().c_str());
      return 1;
    }
    endpoints.push_back(server->endpoint());
    servers.push_back(std::move(server));
  }

  std::vector<std::unique_ptr<Client>> clients;
  std::vector<std::unique_ptr<ClosedLoopLoad>> loads;
  for (size_t i = 0; i < o.clients; ++i) {
    rpc::ClientOptions options;
    options.servers = endpoints;
    options.pool_size = o.pool_size;
    options.client_name = "demo-client-" + std::to_string(i);
    auto client = std::make_unique<Client>(options);
    if (const rpc::Status status = client->Start(); !status.ok()) {
      std::fprintf(stderr, "railyardctl demo: %s\n", status.ToString().c_str());
      return 1;
    }
    client->WaitForPool(o.pool_size, std::chrono::seconds(2));
    loads.push_back(std::make_unique<ClosedLoopLoad>(*client, kMethod, "ping", o.concurrency));
    clients.push_back(std::move(client));
  }
  for (auto& load : loads) load->Start();

  // Signals are handled on their own thread; the main loop polls the flag between refreshes.
  std::atomic<bool> interrupted{false};
  asio::io_context signal_io;
  asio::signal_set signals(signal_io, SIGINT, SIGTERM);
  signals.async_wait([&](const asio::error_code& ec, int) {
    if (!ec) interrupted = true;
  });
  std::thread signal_thread([&] { signal_io.run(); });

  const bool redraw = isatty(STDOUT_FILENO);
  const Clock::time_point start = Clock::now();
  const auto interval = std::chrono::milliseconds(o.interval_ms);
  std::vector<uint64_t> last_requests(servers.size(), 0);
  Clock::time_point last_print = start;
  while (!interrupted) {
    const Clock::time_point next = last_print + interval;
    while (!interrupted && Clock::now() < next)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const Clock::time_point now = Clock::now();
    PrintTables(servers, clients, last_requests,
                std::chrono::duration<double>(now - last_print).count(),
                std::chrono::duration<double>(now - start).count(), redraw);
    last_print = now;
    if (o.duration_s > 0 && now - start >= std::chrono::seconds(o.duration_s)) break;
  }

  signals.cancel();
  signal_thread.join();
  for (auto& load : loads) load->Stop();
  for (auto& load : loads) load->WaitIdle(std::chrono::seconds(5));
  uint64_t ok = 0, failed = 0;
  for (auto& load : loads) {
    ok += load->succeeded();
    failed += load->failed();
  }
  for (auto& client : clients) client->Stop();
  for (auto& server : servers) server->Stop();
  std::printf("\ndemo finished: %llu requests succeeded, %llu failed\n",
              static_cast<unsigned long long>(ok), static_cast<unsigned long long>(failed));
  return 0;
}

}  // namespace railyard::ctl
