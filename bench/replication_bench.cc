// SPDX-License-Identifier: Apache-2.0
// replication_bench: the docstore queue replicated (issue 13), with real railyard-node processes on
// loopback.
//
//  follow    an updater under the seed's write workload (random 8-byte ids, 96-byte documents,
//            closed loop) with two replicas: each replica's apply rate, and its lag (ms and
//            documents) sampled from its telemetry every 50 ms: p50/p99/max, and whether it grows
//            (mean over the last third of the run minus the first third).
//  catch_up  a store of --catch-up-docs documents, written in process, served by a fresh updater;
//            a new empty replica joins: its catch-up rate, against the updater's write rate
//            measured in `follow` (target: at least 5x).
//  cache     zipfian reads (theta 0.99) in process from one store with the document cache on and
//            off, interleaved repetitions, medians (target: at least 1.5x with it on).
//
// stdout: one JSON object per line; stderr: progress. Exit 1 on any failure.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/cluster/admin_client.h"
#include "core/load/key_chooser.h"
#include "core/load/node_process.h"
#include "core/rpc/client.h"
#include "railyard/docservice.boxcar.h"
#include "storage/docstore.h"

namespace railyard::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Flags {
  double duration_s = 60;
  uint64_t catch_up_docs = 10'000'000;
  uint64_t cache_docs = 1'000'000;
  int writers = 16;
  int cache_reps = 5;
  std::string dir;
};

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "replication_bench: %s\n", what.c_str());
  std::exit(1);
}

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<size_t>(p * values.size()))];
}

double Mean(const std::vector<double>& v, size_t from, size_t to) {
  if (to <= from) return 0;
  double sum = 0;
  for (size_t i = from; i < to; ++i) sum += v[i];
  return sum / static_cast<double>(to - from);
}

std::string Value96(std::mt19937_64& rng) {
  std::string value(96, '\0');
  for (char& c : value) c = static_cast<char>('a' + rng() % 26);
  return value;
}

// A node process with the bench's common flags.
std::unique_ptr<load::NodeProcess> StartNode(const std::string& binary, const fs::path& dir,
                                             const std::string& name,
                                             std::vector<std::string> extra) {
  std::vector<std::string> args = {"--name",
                                   name,
                                   "--data-dir",
                                   (dir / name).string(),
                                   "--replication-token-file",
                                   (dir / "token").string(),
                                   "--log-level",
                                   "info"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::unique_ptr<load::NodeProcess> node;
  if (rpc::Status s = load::NodeProcess::Start(binary, args, (dir / (name + ".log")).string(),
                                               std::chrono::seconds(120), &node);
      !s.ok()) {
    Die("starting " + name + ": " + s.ToString());
  }
  return node;
}

std::unique_ptr<load::NodeProcess> StartReplica(const std::string& binary, const fs::path& dir,
                                                const std::string& name,
                                                const load::NodeProcess& updater) {
  return StartNode(binary, dir, name,
                   {"--role", "replica", "--follow", updater.service().ToString()});
}

std::unique_ptr<cluster::AdminClient> AdminOf(const load::NodeProcess& node) {
  auto client = std::make_unique<cluster::AdminClient>(node.admin(), "", "replication_bench");
  if (rpc::Status s = client->Connect(std::chrono::seconds(10)); !s.ok()) {
    Die("admin: " + s.ToString());
  }
  return client;
}

admin::Replication ReplicationOf(cluster::AdminClient& client) {
  admin::Telemetry telemetry;
  if (rpc::Status s = client.Telemetry(&telemetry); !s.ok()) Die("telemetry: " + s.ToString());
  return telemetry.replication();
}

struct LagSamples {
  std::vector<double> ms, docs;
};

// Writes to `updater` from `writers` threads until `stop`; returns the acknowledged writes.
uint64_t WriteLoad(const rpc::Endpoint& updater, int writers, const std::atomic<bool>& stop) {
  rpc::ClientOptions options;
  options.servers = {updater};
  options.pool_size = static_cast<size_t>(writers);
  options.client_name = "replication_bench";
  rpc::Client client(options);
  if (rpc::Status s = client.Start(); !s.ok()) Die("client: " + s.ToString());
  client.WaitForPool(1, std::chrono::seconds(5));
  std::atomic<uint64_t> acked{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      std::mt19937_64 rng(static_cast<uint64_t>(w) * 7919 + 1);
      doc::PutRequest put;
      doc::PutResponse answer;
      doc::DocService::Stub stub(client);
      while (!stop.load()) {
        put.set_id(rng());
        put.set_doc(Value96(rng));
        if (stub.Put(put, &answer).status.ok()) acked.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  return acked.load();
}

// The follow phase; returns the updater's write rate (documents/s).
double Follow(const Flags& flags, const std::string& binary, const fs::path& dir) {
  auto updater = StartNode(binary, dir, "updater", {});
  std::vector<std::unique_ptr<load::NodeProcess>> replicas;
  for (const char* name : {"replica-1", "replica-2"}) {
    replicas.push_back(StartReplica(binary, dir, name, *updater));
  }
  std::vector<std::unique_ptr<cluster::AdminClient>> admins;
  for (const auto& r : replicas) {
    admins.push_back(AdminOf(*r));
  }
  std::vector<LagSamples> samples(replicas.size());
  std::vector<uint64_t> applied_before(replicas.size());
  for (size_t i = 0; i < replicas.size(); ++i) {
    applied_before[i] = ReplicationOf(*admins[i]).applied_docs();
  }
  std::atomic<bool> stop{false};
  uint64_t acked = 0;
  const Clock::time_point start = Clock::now();
  std::thread writer([&] { acked = WriteLoad(updater->service(), flags.writers, stop); });
  const auto duration = std::chrono::duration<double>(flags.duration_s);
  while (Clock::now() - start < duration) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (size_t i = 0; i < replicas.size(); ++i) {
      const admin::Replication r = ReplicationOf(*admins[i]);
      samples[i].ms.push_back(r.lag_seconds() * 1e3);
      samples[i].docs.push_back(static_cast<double>(r.lag_docs()));
    }
  }
  stop = true;
  writer.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const double write_rate = static_cast<double>(acked) / seconds;
  for (size_t i = 0; i < replicas.size(); ++i) {
    const admin::Replication r = ReplicationOf(*admins[i]);
    const LagSamples& s = samples[i];
    const size_t third = s.docs.size() / 3;
    std::printf(
        "{\"bench\":\"replication_bench\",\"phase\":\"follow\",\"replica\":\"replica-%zu\","
        "\"seconds\":%.1f,\"updater_docs_per_s\":%.0f,\"apply_docs_per_s\":%.0f,"
        "\"lag_ms_p50\":%.1f,\"lag_ms_p99\":%.1f,\"lag_ms_max\":%.1f,"
        "\"lag_docs_p50\":%.0f,\"lag_docs_p99\":%.0f,\"lag_docs_max\":%.0f,"
        "\"lag_docs_growth\":%.0f,\"samples\":%zu}\n",
        i + 1, seconds, write_rate,
        static_cast<double>(r.applied_docs() - applied_before[i]) / seconds, Percentile(s.ms, 0.5),
        Percentile(s.ms, 0.99), Percentile(s.ms, 1.0), Percentile(s.docs, 0.5),
        Percentile(s.docs, 0.99), Percentile(s.docs, 1.0),
        Mean(s.docs, s.docs.size() - third, s.docs.size()) - Mean(s.docs, 0, third), s.docs.size());
    std::fflush(stdout);
  }
  for (auto& r : replicas) r->Stop(std::chrono::seconds(10));
  updater->Stop(std::chrono::seconds(10));
  return write_rate;
}

void CatchUp(const Flags& flags, const std::string& binary, const fs::path& dir,
             double updater_write_rate) {
  const fs::path store_dir = dir / "catch-up-updater";
  {
    storage::Options options;
    std::unique_ptr<storage::DocStore> store;
    if (storage::Status s = storage::DocStore::Open(options, store_dir.string(), &store); !s.ok()) {
      Die("prefill: " + s.ToString());
    }
    std::mt19937_64 rng(42);
    for (uint64_t i = 0; i < flags.catch_up_docs; ++i) {
      if (!store->Put(rng(), Value96(rng)).ok()) Die("prefill put failed");
      if (i % 1'000'000 == 0) std::fprintf(stderr, "prefill: %llu\n", (unsigned long long)i);
    }
    if (!store->Close().ok()) Die("prefill close failed");
  }
  auto updater = StartNode(binary, dir, "catch-up-updater", {});
  const uint64_t head = ReplicationOf(*AdminOf(*updater)).head_position();
  const Clock::time_point start = Clock::now();
  auto replica = StartReplica(binary, dir, "catch-up-replica", *updater);
  const auto admin_client = AdminOf(*replica);
  cluster::AdminClient& admin = *admin_client;
  uint64_t applied = 0;
  const Clock::time_point give_up = start + std::chrono::hours(1);
  while (Clock::now() < give_up) {
    const admin::Replication r = ReplicationOf(admin);
    applied = r.applied_position();
    if (applied >= head && r.state() == admin::REPLICA_TAILING) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (applied < head) Die("catch-up did not finish within an hour");
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const double rate = static_cast<double>(flags.catch_up_docs) / seconds;
  std::printf(
      "{\"bench\":\"replication_bench\",\"phase\":\"catch_up\",\"docs\":%llu,\"bytes\":%llu,"
      "\"seconds\":%.2f,\"docs_per_s\":%.0f,\"updater_write_docs_per_s\":%.0f,"
      "\"ratio_to_updater_writes\":%.2f}\n",
      (unsigned long long)flags.catch_up_docs, (unsigned long long)head, seconds, rate,
      updater_write_rate, updater_write_rate > 0 ? rate / updater_write_rate : 0.0);
  std::fflush(stdout);
  replica->Stop(std::chrono::seconds(10));
  updater->Stop(std::chrono::seconds(10));
}

// Reads per second over `reads` zipfian reads from two threads (keys drawn before the clock starts,
// so the figure is the store's alone).
double ZipfianReads(storage::DocStore& store, uint64_t keys, uint64_t reads, uint64_t seed) {
  std::vector<std::vector<uint64_t>> ids(2);
  for (size_t t = 0; t < ids.size(); ++t) {
    load::KeyChooser chooser(load::KeyChooser::Distribution::kZipfian, keys, 0.99, seed * 2 + t);
    ids[t].resize(reads / 2);
    for (uint64_t& id : ids[t]) id = chooser.Next();
  }
  std::atomic<uint64_t> misses{0};
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> threads;
  for (size_t t = 0; t < ids.size(); ++t) {
    threads.emplace_back([&, t] {
      std::string doc;
      for (uint64_t id : ids[t]) {
        if (!store.Get(id, &doc).ok()) misses.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  if (misses.load() > 0) Die("cache phase: a written document was not found");
  return static_cast<double>(reads) / std::chrono::duration<double>(Clock::now() - start).count();
}

void Cache(const Flags& flags, const fs::path& dir) {
  const fs::path store_dir = dir / "cache-store";
  storage::Options options;
  {
    std::unique_ptr<storage::DocStore> store;
    if (!storage::DocStore::Open(options, store_dir.string(), &store).ok()) Die("cache: open");
    std::mt19937_64 rng(1);
    for (uint64_t id = 0; id < flags.cache_docs; ++id) {
      if (!store->Put(id, Value96(rng)).ok()) Die("cache: put");
    }
    if (!store->Flush().ok() || !store->Close().ok()) Die("cache: flush");
  }
  const uint64_t reads = std::max<uint64_t>(200'000, flags.cache_docs * 2);
  std::vector<double> on, off;
  for (int rep = 0; rep < flags.cache_reps; ++rep) {
    for (bool cache : {true, false}) {
      storage::Options o = options;
      o.doc_cache_bytes = cache ? 64ull << 20 : 0;
      std::unique_ptr<storage::DocStore> store;
      if (!storage::DocStore::Open(o, store_dir.string(), &store).ok()) Die("cache: reopen");
      (cache ? on : off)
          .push_back(ZipfianReads(*store, flags.cache_docs, reads, static_cast<uint64_t>(rep)));
    }
  }
  const double on_median = Percentile(on, 0.5);
  const double off_median = Percentile(off, 0.5);
  std::printf(
      "{\"bench\":\"replication_bench\",\"phase\":\"cache\",\"docs\":%llu,\"reads_per_rep\":%llu,"
      "\"reps\":%d,\"cache_on_reads_per_s\":%.0f,\"cache_off_reads_per_s\":%.0f,"
      "\"ratio\":%.2f}\n",
      (unsigned long long)flags.cache_docs, (unsigned long long)reads, flags.cache_reps, on_median,
      off_median, off_median > 0 ? on_median / off_median : 0.0);
  std::fflush(stdout);
}

}  // namespace
}  // namespace railyard::bench

int main(int argc, char** argv) {
  using namespace railyard::bench;
  CLI::App app{"replication_bench: an updater and replicas of the docstore queue, on loopback"};
  Flags flags;
  app.add_option("--duration-s", flags.duration_s, "Length of the follow phase")
      ->capture_default_str();
  app.add_option("--catch-up-docs", flags.catch_up_docs, "Documents a new replica catches up on")
      ->capture_default_str();
  app.add_option("--cache-docs", flags.cache_docs, "Documents in the cache phase's store")
      ->capture_default_str();
  app.add_option("--writers", flags.writers, "Writer threads in the follow phase")
      ->capture_default_str();
  app.add_option("--cache-reps", flags.cache_reps, "Repetitions per cache setting")
      ->capture_default_str();
  app.add_option("--dir", flags.dir, "Scratch folder (default: a new one under /tmp, removed)");
  CLI11_PARSE(app, argc, argv);
  std::string binary;
  if (railyard::rpc::Status s = railyard::load::FindNodeBinary(&binary); !s.ok()) {
    std::fprintf(stderr, "replication_bench: %s\n", s.ToString().c_str());
    return 1;
  }
  const bool own_dir = flags.dir.empty();
  fs::path dir = own_dir
                     ? fs::temp_directory_path() / ("replication_bench-" + std::to_string(getpid()))
                     : fs::path(flags.dir);
  fs::create_directories(dir);
  {
    std::ofstream token(dir / "token");
    token << "bench-replication-token-" << getpid() << "\n";
  }
  fs::permissions(dir / "token", fs::perms::owner_read | fs::perms::owner_write);
  const double write_rate = Follow(flags, binary, dir);
  CatchUp(flags, binary, dir, write_rate);
  Cache(flags, dir);
  if (own_dir) fs::remove_all(dir);
  return 0;
}
