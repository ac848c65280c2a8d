// SPDX-License-Identifier: Apache-2.0
#include "app/railyardctl/demo_command.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <asio.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>

#include "app/railyardctl/load_command.h"
#include "app/railyardctl/stop_signal.h"
#include "core/cluster/replication_names.h"
#include "core/cluster/telemetry_poller.h"
#include "core/load/demo_cluster.h"
#include "core/node/client_telemetry.h"

namespace railyard::ctl {
namespace {

using Clock = std::chrono::steady_clock;

struct DemoNodeView {
  const load::DemoNode& node;
  const rpc::Status& status;
  const admin::Telemetry* telemetry;  // Null when the poll failed.
};

std::string NodeRow(const load::DemoCluster& demo, const DemoNodeView& v) {
  char row[4096];
  if (!v.telemetry) {
    std::snprintf(row, sizeof(row), "%-7s %s\n", v.node.name.c_str(), v.status.ToString().c_str());
    return row;
  }
  const admin::Telemetry& t = *v.telemetry;
  std::string slots;
  for (const admin::SlotEntry& slot : t.slots()) {
    slots += std::to_string(slot.slot()) + ":" +
             demo.ClientLabel(slot.client_id(), slot.client_name()) + (slot.busy() ? "* " : " ");
  }
  // A replica's lag behind the updater, in documents and seconds.
  const admin::Replication& r = t.replication();
  char lag[48] = "-";
  if (r.role() == admin::DOCSTORE_REPLICA && !cluster::ReplicaLagKnown(r)) {
    std::snprintf(lag, sizeof(lag), "unknown");
  } else if (r.role() == admin::DOCSTORE_REPLICA) {
    std::snprintf(lag, sizeof(lag), "%llud/%.1fs", static_cast<unsigned long long>(r.lag_docs()),
                  r.lag_seconds());
  }
  std::snprintf(
      row, sizeof(row), "%-7s %-8s %-9s %-21s %8.0f %7d %9llu %12s  %s\n", t.node().c_str(),
      v.node.role.c_str(), t.state() == admin::NODE_SERVING ? "serving" : "lame-duck",
      t.admin_address().c_str(), t.throughput().requests_per_s(), t.storage().indexes_size(),
      static_cast<unsigned long long>(t.storage().memtable_entries()), lag, slots.c_str());
  return row;
}

// The nodes' own view, polled over their admin services as any operator would.
// `client_admins`: each client's own telemetry service, in client order.
void PrintTables(const load::DemoCluster& demo, cluster::TelemetryPoller& poller,
                 const std::vector<std::unique_ptr<node::AdminService>>& client_admins,
                 double elapsed_s, bool redraw) {
  const auto& nodes = demo.nodes();
  const auto& clients = demo.clients();
  std::vector<std::string> rows(nodes.size());
  for (const cluster::PollResult& r : poller.PollRound()) {
    const DemoNodeView view{nodes[static_cast<size_t>(r.id)], r.status, r.telemetry.get()};
    rows[static_cast<size_t>(r.id)] = NodeRow(demo, view);
  }
  if (redraw) std::printf("\033[H\033[2J");
  std::printf(
      "Railyard demo: %zu docstore nodes (1 updater, %zu replicas), %zu load clients on loopback "
      "(writes to the updater, reads over every node), %.0f s (Ctrl-C to stop)\n\n",
      nodes.size(), nodes.size() - 1, clients.size(), elapsed_s);
  std::printf("%-7s %-8s %-9s %-21s %8s %7s %9s %12s  %s\n", "node", "role", "state", "admin",
              "req/s", "indexes", "memtable", "lag(docs/s)",
              "slots (slot:client or following node, * busy)");
  for (size_t i = 0; i < rows.size(); ++i) {
    std::fputs(rows[i].empty() ? (nodes[i].name + " (retrying)\n").c_str() : rows[i].c_str(),
               stdout);
  }
  std::printf("\n%-7s %-21s %5s %9s %8s %8s %8s  %s\n", "client", "admin", "pool", "calls",
              "retries", "rejects", "swaps", "pool (node/slot, best first)");
  for (size_t i = 0; i < clients.size(); ++i) {
    const rpc::PoolSnapshot pool = clients[i]->client().Snapshot();
    std::string entries;
    for (const rpc::PoolEntrySnapshot& e : pool.entries) {
      entries += "n" + std::to_string(e.server) + "/" + std::to_string(e.slot) + " ";
    }
    const std::string admin =
        i < client_admins.size() ? client_admins[i]->endpoint().ToString() : "-";
    std::printf("c%-6zu %-21s %2zu/%-2zu %9llu %8llu %8llu %8llu  %s\n", i, admin.c_str(),
                pool.entries.size(), pool.capacity,
                static_cast<unsigned long long>(pool.counters.requests),
                static_cast<unsigned long long>(pool.counters.retries),
                static_cast<unsigned long long>(pool.counters.rejections),
                static_cast<unsigned long long>(pool.counters.replacements), entries.c_str());
  }
  std::printf("\nTry: railyardctl status -n %s   (or drain it, and watch the clients move away)\n",
              nodes.back().admin.ToString().c_str());
  std::printf("     railyardctl status --cluster %s   (every node, its role and lag)\n",
              demo.ClusterFile().c_str());
  std::printf("     railyardctl load --cluster %s --data-token-file %s\n",
              demo.ClusterFile().c_str(), demo.DataTokenFile().c_str());
  std::fflush(stdout);
}

}  // namespace

CLI::App* AddDemoCommand(CLI::App& app, DemoOptions& o) {
  CLI::App* demo = app.add_subcommand(
      "demo",
      "Run a local cluster (one updater, its replicas) with load on loopback and watch it "
      "balance");
  demo->add_option("--nodes", o.cluster.nodes,
                   "Number of nodes: the first is the updater, the others its replicas")
      ->check(CLI::Range(1, 16))
      ->capture_default_str();
  demo->add_option("--clients", o.cluster.clients, "Number of load clients")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  demo->add_option("--concurrency", o.cluster.concurrency, "Calls in flight per client")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  demo->add_option("--pool-size", o.cluster.pool_size, "Connections per client pool")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  demo->add_option("--subset", o.subset,
                   "How each client subsets the nodes: none, random or deterministic (the clients "
                   "take indexes 0, 1, 2, ... in turn)")
      ->check(CLI::IsMember({"none", "random", "deterministic"}))
      ->capture_default_str();
  demo->add_option("--subset-size", o.cluster.subset_size, "Nodes per client when subsetting")
      ->check(CLI::Range(size_t{1}, size_t{16}));
  demo->add_option("--read-fraction", o.cluster.read_fraction, "Share of calls that are reads")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  demo->add_option("--memtable-entries", o.cluster.memtable_entries,
                   "In-memory index size per node")
      ->check(CLI::Range(size_t{100}, size_t{1} << 26))
      ->capture_default_str();
  demo->add_option("--interval-ms", o.interval_ms, "Refresh interval")
      ->check(CLI::Range(100, 60000))
      ->capture_default_str();
  demo->add_option("--duration-s", o.duration_s, "Stop after this long (0: until Ctrl-C)")
      ->check(CLI::Range(0, 86400))
      ->capture_default_str();
  demo->add_option("--data-dir", o.cluster.data_dir,
                   "Keep the nodes' data here (default: a temp folder)");
  return demo;
}

int RunDemo(const DemoOptions& options) {
  DemoOptions o = options;
  o.cluster.subset_mode = *balance::ParseSubsetMode(o.subset);  // Checked by the flag.
  if (o.cluster.subset_mode != balance::SubsetMode::kNone && o.cluster.subset_size == 0) {
    std::fprintf(stderr, "railyardctl demo: --subset %s needs --subset-size N\n", o.subset.c_str());
    return 2;
  }
  o.cluster.keep_folder_if_requests_failed = true;  // Printed below: the logs say why.
  load::DemoCluster demo;
  if (const rpc::Status status = demo.Start(o.cluster); !status.ok()) {
    std::fprintf(stderr, "railyardctl demo: %s\n", status.ToString().c_str());
    return 1;
  }

  // Each client's own figures, watchable like a node (open, as the demo's nodes are).
  std::vector<std::unique_ptr<node::AdminService>> client_admins;
  std::vector<node::ClientEndpoint> endpoints;
  for (const auto& client : demo.clients()) {
    endpoints.push_back({client->client_name(), &client->client(), client->write_client()});
  }
  if (const rpc::Status status =
          node::StartClientAdminServices(node::AdminOptions{}, endpoints, &client_admins);
      !status.ok()) {
    std::fprintf(stderr, "railyardctl demo: %s\n", status.ToString().c_str());
    demo.Stop();
    return 1;
  }

  const StopSignal stop;
  std::vector<cluster::PollTarget> targets;
  for (size_t i = 0; i < demo.nodes().size(); ++i) {
    targets.push_back({static_cast<int>(i), demo.nodes()[i].admin, {}, std::nullopt});
  }
  cluster::PollerOptions poll_options;
  poll_options.client_name = "railyardctl demo";
  poll_options.wait_for_connect = true;
  cluster::TelemetryPoller poller(std::move(targets), poll_options);

  const bool redraw = isatty(STDOUT_FILENO);
  const Clock::time_point start = Clock::now();
  Clock::time_point next = start;
  while (!stop.stopped()) {
    // Tables printed late are followed by one at once, not by a burst making up for the missed.
    next = std::max(next + std::chrono::milliseconds(o.interval_ms), Clock::now());
    stop.SleepFor(std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()));
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    PrintTables(demo, poller, client_admins, elapsed, redraw);
    if (o.duration_s > 0 && elapsed >= o.duration_s) break;
  }
  for (auto& service : client_admins) service->Stop();  // Before the clients they read go.
  const load::LoadResult report = demo.Stop();
  const uint64_t failed = report.errors + report.rejections;
  std::printf("\ndemo finished: %llu requests succeeded, %llu failed\n",
              static_cast<unsigned long long>(report.requests - failed),
              static_cast<unsigned long long>(failed));
  // What failed, so that a failing demo says why (its exit code is 1 then).
  if (report.rejections > 0) {
    std::printf("  %llu refused by the client before any attempt (POOL_EXHAUSTED)\n",
                static_cast<unsigned long long>(report.rejections));
  }
  PrintFailuresByCode(report);
  if (!demo.kept_folder().empty()) {
    std::printf("  the nodes' logs are kept: %s/node*/node.log\n", demo.kept_folder().c_str());
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace railyard::ctl
