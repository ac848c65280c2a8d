// SPDX-License-Identifier: Apache-2.0
// service_bench: the docservice end to end against the services a service owner would weigh it
// against, each driven by the same closed-loop engine in this process (bench/closed_loop.h), so
// the client's share of the machine is the same: railyard-node through the Boxcar client (the
// generated DocService stub), Redis 7 (append-only file, fsync every second: the nearest
// durability) through hiredis, and memcached (the seeds' cache tier; no durability) through
// libmemcached. Topologies: "single" (one server each) and "replicated" (an updater with two
// replicas against a Redis primary with two replicas; reads balanced over all three, writes to the
// updater or primary; memcached has no replicas and sits this one out).
//
// For each topology and value size the servers start once (on OS-chosen loopback ports, in a
// folder of their own), every key is written, the replicas are waited for, then each point
// (op x key distribution x clients) runs --reps times with the systems interleaved, so a ratio
// compares runs that saw the same machine. "railyard-nocache" is railyard-node with its document
// cache off (the node's default), against "railyard" with --doc-cache-mb, to measure the cache
// (with --node-memory-limit-mb, over a store larger than memory);
// "railyard-workers" runs every call on a worker thread (--request-threads workers), to weigh that
// against the default of running them on the I/O threads.
//
// stdout: one JSON object per run:
//   {"bench":"service_bench","system":"railyard","topology":"single","op":"get","keys":"uniform",
//    "clients":16,"value_bytes":100,"rep":0,"requests_per_s":...,"p50_us":...,"p99_us":...,
//    "max_us":...,"requests":...,"errors":...,"server_cpu_us_per_request":...,
//    "client_cpu_us_per_request":...}
// server CPU: every server process of the system (utime + stime from /proc, in 10 ms ticks) over
// the measured window, per request answered in it; client CPU: this process's. Then one object per
// point with "summary":"median" and, for each peer measured, the medians of the per-repetition
// ratios railyard/peer of requests/s, p99 and server CPU per request.
//
// Exit status: 0 when every run started, drained and had no errors; 1 otherwise; 2 on bad flags.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <hiredis/hiredis.h>

#include "bench/closed_loop.h"
#include "bench/kv_memory_cgroup.h"
#include "bench/kv_repeat.h"
#include "bench/kv_service.h"
#include "bench/latency_summary.h"
#include "bench/peer_process.h"
#include "bench/proc_sample.h"
#include "core/cluster/admin_client.h"
#include "core/load/key_chooser.h"
#include "core/load/node_process.h"
#include "core/rpc/client.h"
#include "railyard/docservice.boxcar.h"

namespace railyard::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Flags {
  std::vector<std::string> systems{"railyard", "redis", "memcached"};
  std::vector<std::string> topologies{"single", "replicated"};
  std::vector<std::string> ops{"get", "put"};
  std::vector<std::string> distributions{"uniform", "zipfian"};
  std::vector<size_t> clients{1, 16, 64};
  std::vector<size_t> values{100, 4096};
  uint64_t keys = 100000;
  double duration_s = 8;
  double warmup_s = 1;
  int reps = 3;
  size_t client_threads = 2;
  std::string dir;
  std::vector<std::string> node_args;   // Appended to every railyard-node's command line.
  std::vector<std::string> redis_args;  // Appended to every redis-server's command line.
  uint64_t node_memory_limit_mb = 0;    // 0: none.
  int64_t doc_cache_mb = -1;            // The "railyard" system's document cache; -1: the default.
};

// One system's servers for a topology: the primary's port first.
struct Deployment {
  std::string system;
  std::vector<uint16_t> ports;
  std::vector<pid_t> pids;
  std::vector<std::unique_ptr<load::NodeProcess>> nodes;
  std::vector<std::unique_ptr<PeerProcess>> peers;
  std::vector<rpc::Endpoint> admins;                   // railyard-node's replicas' admin services.
  std::vector<std::unique_ptr<MemoryCgroup>> cgroups;  // One per node under a memory limit.
};

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "service_bench: %s\n", message.c_str());
  std::exit(1);
}

double CpuOf(const std::vector<pid_t>& pids) {
  double sum = 0;
  for (pid_t pid : pids) sum += ReadProc(pid).cpu_s;
  return sum;
}

std::unique_ptr<load::NodeProcess> StartNode(const std::string& binary, const fs::path& dir,
                                             const std::string& name,
                                             std::vector<std::string> extra) {
  std::vector<std::string> args = {"--name",      name,  "--data-dir", (dir / name).string(),
                                   "--log-level", "warn"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::unique_ptr<load::NodeProcess> node;
  if (rpc::Status s = load::NodeProcess::Start(binary, args, (dir / (name + ".log")).string(),
                                               std::chrono::seconds(60), &node);
      !s.ok()) {
    Die("starting railyard-node " + name + ": " + s.ToString());
  }
  return node;
}

// `system`: "railyard", "railyard-nocache" (the same with its document cache off) or
// "railyard-workers" (every call on a worker).
Deployment StartRailyard(const std::string& system, const std::string& topology,
                         const fs::path& dir, std::vector<std::string> node_args,
                         uint64_t memory_limit_mb, int64_t doc_cache_mb) {
  if (system == "railyard" && doc_cache_mb >= 0) {
    node_args.insert(node_args.end(), {"--doc-cache-mb", std::to_string(doc_cache_mb)});
  }
  if (system == "railyard-nocache") node_args.insert(node_args.end(), {"--doc-cache-mb", "0"});
  if (system == "railyard-workers") {
    node_args.insert(node_args.end(), {"--request-threads", "workers"});
  }
  std::string binary;
  if (rpc::Status s = load::FindNodeBinary(&binary); !s.ok()) Die(s.ToString());
  fs::create_directories(dir);
  Deployment d;
  d.system = system;
  if (topology == "single") {
    d.nodes.push_back(StartNode(binary, dir, "node1", node_args));
  } else {
    const fs::path token = dir / "replication.token";
    std::ofstream(token) << "service-bench-replication\n";
    fs::permissions(token, fs::perms::owner_read | fs::perms::owner_write);
    std::vector<std::string> updater_args = {"--replication-token-file", token.string()};
    updater_args.insert(updater_args.end(), node_args.begin(), node_args.end());
    d.nodes.push_back(StartNode(binary, dir, "updater", updater_args));
    const std::string updater = d.nodes[0]->service().ToString();
    for (const char* name : {"replica1", "replica2"}) {
      std::vector<std::string> replica_args = {
          "--role", "replica", "--follow", updater, "--replication-token-file", token.string()};
      replica_args.insert(replica_args.end(), node_args.begin(), node_args.end());
      d.nodes.push_back(StartNode(binary, dir, name, replica_args));
      d.admins.push_back(d.nodes.back()->admin());
    }
  }
  for (const auto& node : d.nodes) {
    d.ports.push_back(node->service().port);
    d.pids.push_back(node->pid());
    if (memory_limit_mb == 0) continue;
    // Before the keys are written: the store's pages read and written from now on count.
    auto cgroup = std::make_unique<MemoryCgroup>();
    std::string error;
    const std::string name =
        "service_bench-" + std::to_string(getpid()) + "-" + std::to_string(node->pid());
    if (!cgroup->Create(name, memory_limit_mb << 20, &error)) Die("memory limit: " + error);
    if (!MoveIntoMemoryCgroup(cgroup->procs_path(), node->pid(), &error)) {
      Die("memory limit: " + error);
    }
    d.cgroups.push_back(std::move(cgroup));
  }
  return d;
}

std::unique_ptr<PeerProcess> StartPeer(const std::string& what, std::vector<std::string> argv,
                                       const std::string& port_flag, const fs::path& log) {
  std::string error;
  for (int attempt = 0; attempt < 3; ++attempt) {  // The port may be taken meanwhile.
    const uint16_t port = PeerProcess::FreeLoopbackPort();
    std::vector<std::string> with_port = argv;
    with_port.push_back(port_flag);
    with_port.push_back(std::to_string(port));
    if (auto peer =
            PeerProcess::Start(with_port, port, log.string(), std::chrono::seconds(20), &error)) {
      return peer;
    }
  }
  Die("starting " + what + ": " + error);
}

Deployment StartRedis(const std::string& topology, const fs::path& dir,
                      const std::vector<std::string>& redis_args) {
  Deployment d;
  d.system = "redis";
  const int servers = topology == "single" ? 1 : 3;
  for (int i = 0; i < servers; ++i) {
    const fs::path folder = dir / ("redis" + std::to_string(i + 1));
    fs::create_directories(folder);
    std::vector<std::string> argv = {"redis-server",
                                     "--bind",
                                     "127.0.0.1",
                                     "--dir",
                                     folder.string(),
                                     "--save",
                                     "",
                                     "--daemonize",
                                     "no",
                                     "--protected-mode",
                                     "no",
                                     "--appendonly",
                                     i == 0 ? "yes" : "no",
                                     "--appendfsync",
                                     "everysec"};
    if (i > 0) {
      argv.insert(argv.end(), {"--replicaof", "127.0.0.1", std::to_string(d.ports[0])});
    }
    argv.insert(argv.end(), redis_args.begin(), redis_args.end());
    d.peers.push_back(StartPeer("redis-server", argv, "--port", folder / "redis.log"));
    d.ports.push_back(d.peers.back()->port());
    d.pids.push_back(d.peers.back()->pid());
  }
  return d;
}

Deployment StartMemcached(const fs::path& dir) {
  fs::create_directories(dir);
  Deployment d;
  d.system = "memcached";
  std::vector<std::string> argv = {"memcached", "-l", "127.0.0.1", "-U",  "0",
                                   "-t",        "4",  "-m",        "4096"};
  if (geteuid() == 0) argv.insert(argv.end(), {"-u", "root"});  // It refuses root otherwise.
  d.peers.push_back(StartPeer("memcached", argv, "-p", dir / "memcached.log"));
  d.ports.push_back(d.peers.back()->port());
  d.pids.push_back(d.peers.back()->pid());
  return d;
}

std::unique_ptr<KvService> MakeService(const std::string& system, ClosedLoop& loop,
                                       size_t value_size, size_t client_threads) {
  if (system.starts_with("railyard")) return MakeBoxcarDocService(loop, value_size, client_threads);
  if (system == "redis") return MakeRedisService(loop, value_size, client_threads);
  return MakeMemcachedService(loop, value_size);
}

// Writes every key once through the system's own client.
void Preload(const Deployment& d, size_t value_size, uint64_t keys, size_t client_threads) {
  const Clock::time_point start = Clock::now();
  LoopOptions options;
  options.concurrency = 16;
  options.duration = std::chrono::minutes(30);
  ClosedLoop loop(options);
  std::unique_ptr<KvService> service = MakeService(d.system, loop, value_size, client_threads);
  if (std::string error = service->Connect({{d.ports[0]}}, options.concurrency); !error.empty()) {
    Die(error);
  }
  std::atomic<uint64_t> next{0};
  const LoopResult result = loop.Run([&](size_t caller) {
    const uint64_t key = next.fetch_add(1);
    if (key + 1 == keys) loop.Finish();
    service->Put(caller, key % keys);  // Past the end: a key again, until the loop stops.
  });
  service->Disconnect();
  if (!result.drained || result.errors > 0 || next.load() < keys) {
    Die(d.system + ": preloading " + std::to_string(keys) + " keys failed (" +
        std::to_string(result.errors) + " errors)");
  }
  std::fprintf(stderr, "service_bench: %s: %llu keys of %zu bytes written in %.1f s\n",
               d.system.c_str(), static_cast<unsigned long long>(keys), value_size,
               std::chrono::duration<double>(Clock::now() - start).count());
}

// The queue position a replica must have applied to hold every write made so far: that of one more
// write (key 0 again) after them, on the updater at `port`.
uint64_t PositionAfterEveryWrite(uint16_t port, size_t value_size) {
  rpc::ClientOptions options;
  options.servers.push_back({"127.0.0.1", port});
  options.pool_size = 1;
  options.client_name = "service_bench";
  rpc::Client client(options);
  if (rpc::Status s = client.Start(); !s.ok()) Die("boxcar client: " + s.ToString());
  if (!client.WaitForPool(1, std::chrono::seconds(10))) Die("the updater took no connection");
  doc::PutRequest request;
  request.set_id(0);
  request.set_doc(ValueFor(0, value_size));  // What the preload wrote there: reads check it.
  doc::PutResponse response;
  const rpc::CallResult result =
      doc::DocService::Stub(client).Put(request, &response, std::chrono::seconds(10));
  if (!result.status.ok()) Die("the last preload write failed: " + result.status.ToString());
  return response.position();
}

// Until every replica holds every write (railyard: applied the queue to the position of a write
// after them, since one in the updater's open block is not lag yet; Redis: as many keys as the
// primary), or 120 s.
void WaitForReplicas(const Deployment& d, uint64_t keys, size_t value_size) {
  const Clock::time_point give_up = Clock::now() + std::chrono::seconds(120);
  if (d.system.starts_with("railyard")) {
    const uint64_t position = PositionAfterEveryWrite(d.ports[0], value_size);
    for (const rpc::Endpoint& admin : d.admins) {
      cluster::AdminClient client(admin, "", "service_bench");
      if (rpc::Status s = client.Connect(std::chrono::seconds(10)); !s.ok()) Die(s.ToString());
      while (true) {
        admin::Telemetry t;
        if (client.Telemetry(&t).ok() && t.replication().applied_position() >= position) break;
        if (Clock::now() > give_up) Die("a railyard replica did not catch up within 120 s");
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
  } else if (d.system == "redis") {
    for (size_t i = 1; i < d.ports.size(); ++i) {
      redisContext* c = redisConnect("127.0.0.1", d.ports[i]);
      if (c == nullptr || c->err) Die("redis replica: cannot connect");
      while (true) {
        auto* reply = static_cast<redisReply*>(redisCommand(c, "DBSIZE"));
        const bool done =
            reply && reply->type == REDIS_REPLY_INTEGER && uint64_t(reply->integer) >= keys;
        if (reply) freeReplyObject(reply);
        if (done) break;
        if (Clock::now() > give_up) Die("a redis replica did not catch up within 120 s");
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      redisFree(c);
    }
  }
}

struct Point {
  std::string topology, op, distribution;
  size_t clients = 0;
  size_t value_size = 0;
};

struct RunFigures {
  double requests_per_s = 0, p99_us = 0, server_cpu_us = 0;
};

// One run of one system at one point; false if it failed (its line says why on stderr).
bool RunOnce(const Deployment& d, const Point& p, int rep, const Flags& flags,
             RunFigures* figures) {
  LoopOptions options;
  options.concurrency = p.clients;
  options.warmup = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(flags.warmup_s));
  options.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(flags.duration_s));
  double server_cpu = 0, client_cpu = 0;
  options.at_window_start = [&] {
    server_cpu = -CpuOf(d.pids);
    client_cpu = -SelfCpuSeconds();
  };
  options.at_window_end = [&] {
    server_cpu += CpuOf(d.pids);
    client_cpu += SelfCpuSeconds();
  };
  ClosedLoop loop(options);
  std::unique_ptr<KvService> service =
      MakeService(d.system, loop, p.value_size, flags.client_threads);
  const ServiceAddress address{p.op == "put" ? std::vector<uint16_t>{d.ports[0]} : d.ports};
  if (std::string error = service->Connect(address, p.clients); !error.empty()) {
    std::fprintf(stderr, "service_bench: %s: %s\n", d.system.c_str(), error.c_str());
    return false;
  }
  std::vector<load::KeyChooser> choosers;
  const auto distribution = p.distribution == "zipfian" ? load::KeyChooser::Distribution::kZipfian
                                                        : load::KeyChooser::Distribution::kUniform;
  for (size_t i = 0; i < p.clients; ++i) {
    choosers.emplace_back(distribution, flags.keys, 0.99, uint64_t(rep) * 1000 + i + 1);
  }
  const bool put = p.op == "put";
  LoopResult result = loop.Run([&](size_t caller) {
    const uint64_t key = choosers[caller].Next();
    put ? service->Put(caller, key) : service->Get(caller, key);
  });
  service->Disconnect();
  if (!result.drained) {
    std::fprintf(stderr, "service_bench: %s: calls did not end after the window\n",
                 d.system.c_str());
    return false;
  }
  const int64_t max_ns =
      result.latencies_ns.empty()
          ? 0
          : *std::max_element(result.latencies_ns.begin(), result.latencies_ns.end());
  const LatencySummary latency = Summarize(result.latencies_ns);
  const double requests = double(std::max<uint64_t>(result.requests, 1));
  figures->requests_per_s = double(result.requests) / result.duration_s;
  figures->p99_us = latency.p99_us;
  figures->server_cpu_us = server_cpu * 1e6 / requests;
  std::printf(
      "{\"bench\":\"service_bench\",\"system\":\"%s\",\"topology\":\"%s\",\"op\":\"%s\","
      "\"keys\":\"%s\",\"clients\":%zu,\"value_bytes\":%zu,\"rep\":%d,\"requests_per_s\":%.0f,"
      "\"p50_us\":%.1f,\"p99_us\":%.1f,\"max_us\":%.1f,\"requests\":%llu,\"errors\":%llu,"
      "\"server_cpu_us_per_request\":%.2f,\"client_cpu_us_per_request\":%.2f}\n",
      d.system.c_str(), p.topology.c_str(), p.op.c_str(), p.distribution.c_str(), p.clients,
      p.value_size, rep, figures->requests_per_s, latency.p50_us, latency.p99_us,
      double(max_ns) / 1000.0, static_cast<unsigned long long>(result.requests),
      static_cast<unsigned long long>(result.errors), figures->server_cpu_us,
      client_cpu * 1e6 / requests);
  std::fflush(stdout);
  return result.errors == 0 && result.requests > 0;
}

void PrintSummary(const Point& p, const std::map<std::string, std::vector<RunFigures>>& runs) {
  auto it = runs.find("railyard");
  std::string line = "{\"bench\":\"service_bench\",\"summary\":\"median\",\"topology\":\"" +
                     p.topology + "\",\"op\":\"" + p.op + "\",\"keys\":\"" + p.distribution +
                     "\",\"clients\":" + std::to_string(p.clients) +
                     ",\"value_bytes\":" + std::to_string(p.value_size);
  char buffer[256];
  for (const auto& [system, figures] : runs) {
    std::vector<double> rates;
    for (const RunFigures& f : figures) rates.push_back(f.requests_per_s);
    std::snprintf(buffer, sizeof buffer, ",\"%s_requests_per_s\":%.0f", system.c_str(),
                  SpreadOf(rates).median);
    line += buffer;
    if (system == "railyard" || it == runs.end()) continue;
    std::vector<double> rate_ratio, p99_ratio, cpu_ratio;
    for (size_t i = 0; i < figures.size() && i < it->second.size(); ++i) {
      const RunFigures& ours = it->second[i];
      const RunFigures& theirs = figures[i];
      if (theirs.requests_per_s > 0)
        rate_ratio.push_back(ours.requests_per_s / theirs.requests_per_s);
      if (theirs.p99_us > 0) p99_ratio.push_back(ours.p99_us / theirs.p99_us);
      if (theirs.server_cpu_us > 0) cpu_ratio.push_back(ours.server_cpu_us / theirs.server_cpu_us);
    }
    std::snprintf(buffer, sizeof buffer,
                  ",\"railyard_vs_%s\":{\"requests_per_s\":%.3f,\"p99\":%.3f,"
                  "\"server_cpu_per_request\":%.3f}",
                  system.c_str(), SpreadOf(rate_ratio).median, SpreadOf(p99_ratio).median,
                  SpreadOf(cpu_ratio).median);
    line += buffer;
  }
  std::printf("%s}\n", line.c_str());
  std::fflush(stdout);
}

int Main(const Flags& flags) {
  const fs::path root =
      flags.dir.empty() ? fs::temp_directory_path() / ("service_bench." + std::to_string(getpid()))
                        : fs::path(flags.dir);
  fs::create_directories(root);
  bool all_ok = true;
  for (const std::string& topology : flags.topologies) {
    for (size_t value_size : flags.values) {
      const fs::path dir = root / (topology + "-" + std::to_string(value_size));
      std::vector<Deployment> deployments;
      for (const std::string& system : flags.systems) {
        if (system.starts_with("railyard")) {
          deployments.push_back(StartRailyard(system, topology, dir / system, flags.node_args,
                                              flags.node_memory_limit_mb, flags.doc_cache_mb));
        }
        if (system == "redis") {
          deployments.push_back(StartRedis(topology, dir / "redis", flags.redis_args));
        }
        if (system == "memcached" && topology == "single") {
          deployments.push_back(StartMemcached(dir / "memcached"));
        }
      }
      for (const Deployment& d : deployments) {
        Preload(d, value_size, flags.keys, flags.client_threads);
        WaitForReplicas(d, flags.keys, value_size);
      }
      for (const std::string& op : flags.ops) {
        for (const std::string& distribution : flags.distributions) {
          for (size_t clients : flags.clients) {
            const Point p{topology, op, distribution, clients, value_size};
            std::map<std::string, std::vector<RunFigures>> runs;
            for (int rep = 0; rep < flags.reps; ++rep) {
              for (const Deployment& d : deployments) {
                RunFigures figures;
                if (!RunOnce(d, p, rep, flags, &figures)) all_ok = false;
                runs[d.system].push_back(figures);
              }
            }
            PrintSummary(p, runs);
          }
        }
      }
    }
  }
  if (flags.dir.empty()) fs::remove_all(root);
  return all_ok ? 0 : 1;
}

}  // namespace
}  // namespace railyard::bench

int main(int argc, char** argv) {
  railyard::bench::Flags flags;
  CLI::App app{"service_bench: railyard-node against Redis and memcached, end to end on loopback"};
  app.add_option("--systems", flags.systems,
                 "railyard, redis, memcached; railyard-nocache (railyard-node with its "
                 "document cache off) and railyard-workers (every call on a worker thread)")
      ->delimiter(',')
      ->check(CLI::IsMember(
          {"railyard", "railyard-nocache", "railyard-workers", "redis", "memcached"}));
  app.add_option("--topologies", flags.topologies, "single, replicated")
      ->delimiter(',')
      ->check(CLI::IsMember({"single", "replicated"}));
  app.add_option("--ops", flags.ops, "get, put")
      ->delimiter(',')
      ->check(CLI::IsMember({"get", "put"}));
  app.add_option("--keys-distribution", flags.distributions, "uniform, zipfian")
      ->delimiter(',')
      ->check(CLI::IsMember({"uniform", "zipfian"}));
  app.add_option("--clients", flags.clients, "concurrent callers per point")->delimiter(',');
  app.add_option("--values", flags.values, "value sizes in bytes")->delimiter(',');
  app.add_option("--keys", flags.keys, "keys written before the runs, read and written by them")
      ->check(CLI::Range(uint64_t(1), uint64_t(1) << 40));
  app.add_option("--duration-s", flags.duration_s, "measured seconds per run")
      ->check(CLI::PositiveNumber);
  app.add_option("--warmup-s", flags.warmup_s, "seconds before each run's window")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--reps", flags.reps, "repetitions per point, systems interleaved")
      ->check(CLI::Range(1, 100));
  app.add_option("--client-threads", flags.client_threads,
                 "the Boxcar and hiredis clients' I/O threads")
      ->check(CLI::Range(size_t(1), size_t(64)));
  app.add_option("--dir", flags.dir,
                 "where the servers keep their data (kept); default: a "
                 "temporary folder, removed at the end");
  app.add_option("--node-arg", flags.node_args,
                 "an argument for every railyard-node (repeat it; e.g. --node-arg=--config "
                 "--node-arg=FILE)")
      ->allow_extra_args(false);
  app.add_option("--redis-arg", flags.redis_args,
                 "an argument for every redis-server, after the benchmark's own (repeat it; e.g. "
                 "--redis-arg=--auto-aof-rewrite-percentage --redis-arg=0)")
      ->allow_extra_args(false);
  app.add_option("--node-memory-limit-mb", flags.node_memory_limit_mb,
                 "each railyard-node in a memory cgroup of this size (page cache included), as a "
                 "host whose store does not fit in memory; 0: none");
  app.add_option("--doc-cache-mb", flags.doc_cache_mb,
                 "the document cache of the \"railyard\" system's nodes (railyard-nocache's is 0); "
                 "default: railyard-node's (off), or 64 beside railyard-nocache")
      ->check(CLI::Range(int64_t(0), int64_t(1) << 20));
  CLI11_PARSE(app, argc, argv);
  // The node's default is off: compared with railyard-nocache, "railyard" would be the same node.
  const auto listed = [&flags](const char* system) {
    return std::find(flags.systems.begin(), flags.systems.end(), system) != flags.systems.end();
  };
  if (flags.doc_cache_mb < 0 && listed("railyard") && listed("railyard-nocache")) {
    flags.doc_cache_mb = 64;
    std::fprintf(stderr,
                 "service_bench: railyard with a 64 MB document cache against "
                 "railyard-nocache (--doc-cache-mb to choose)\n");
  }
  return railyard::bench::Main(flags);
}
