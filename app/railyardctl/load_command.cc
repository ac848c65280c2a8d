// SPDX-License-Identifier: Apache-2.0
#include "app/railyardctl/load_command.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <asio.hpp>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <thread>

#include "app/railyardctl/admin_commands.h"
#include "app/railyardctl/stop_signal.h"
#include "core/cluster/cluster_file.h"
#include "core/cluster/text_files.h"
#include "core/load/verifying_load.h"
#include "core/node/admin_service.h"
#include "core/node/client_telemetry.h"
#include "core/node/telemetry.h"
#include "core/trace/recording_reader.h"
#include "core/trace/recording_writer.h"

namespace railyard::ctl {

namespace {

using Clock = std::chrono::steady_clock;

void PrintProgress(const load::LoadResult& r, bool tty) {
  std::fprintf(stderr,
               "%s[%6.1fs] %llu calls (%.0f/s)  ok %llu  not-found %llu  errors %llu  rejected "
               "%llu  retries %llu  p50 %.0fus  p99 %.0fus%s",
               tty ? "\r" : "", r.elapsed_s, static_cast<unsigned long long>(r.requests),
               r.elapsed_s > 0 ? static_cast<double>(r.requests) / r.elapsed_s : 0.0,
               static_cast<unsigned long long>(r.ok), static_cast<unsigned long long>(r.not_found),
               static_cast<unsigned long long>(r.errors),
               static_cast<unsigned long long>(r.rejections),
               static_cast<unsigned long long>(r.retries), r.p50_us, r.p99_us, tty ? "   " : "\n");
  std::fflush(stderr);
}

// Each serving node's share, by role: the updater's writes, everyone's reads.
std::string NodeFigures(const load::LoadResult& r, const LoadTargets& targets, bool json) {
  std::string out;
  for (const LoadNode& node : targets.readers) {
    const std::string address = node.service.ToString();
    const auto it = r.by_node.find(address);
    const load::NodeCounts counts = it == r.by_node.end() ? load::NodeCounts{} : it->second;
    const auto reads = static_cast<unsigned long long>(counts.reads);
    const auto writes = static_cast<unsigned long long>(counts.writes);
    const auto errors = static_cast<unsigned long long>(counts.errors);
    char line[256];
    if (json) {
      std::snprintf(line, sizeof(line),
                    "%s{\"address\":\"%s\",\"role\":\"%s\",\"reads\":%llu,\"writes\":%llu,"
                    "\"errors\":%llu}",
                    out.empty() ? "" : ",", address.c_str(), node.role.c_str(), reads, writes,
                    errors);
    } else {
      std::snprintf(line, sizeof(line), "  %-8s %-22s reads %llu, writes %llu, errors %llu\n",
                    node.role.c_str(), address.c_str(), reads, writes, errors);
    }
    out += line;
  }
  return out;
}

void PrintSummary(const load::LoadResult& r, const LoadTargets& targets, bool json) {
  const double rate = r.elapsed_s > 0 ? static_cast<double>(r.requests) / r.elapsed_s : 0;
  if (json) {
    std::printf(
        "{\"load\":\"summary\",\"elapsed_s\":%.3f,\"requests\":%llu,\"requests_per_s\":%.1f,"
        "\"ok\":%llu,\"not_found\":%llu,\"behind\":%llu,\"errors\":%llu,\"rejections\":%llu,"
        "\"retries\":%llu,\"p50_us\":%.1f,\"p99_us\":%.1f,\"max_us\":%.1f,"
        "\"reads_with_position\":%llu,\"nodes\":[%s]}\n",
        r.elapsed_s, static_cast<unsigned long long>(r.requests), rate,
        static_cast<unsigned long long>(r.ok), static_cast<unsigned long long>(r.not_found),
        static_cast<unsigned long long>(r.behind), static_cast<unsigned long long>(r.errors),
        static_cast<unsigned long long>(r.rejections), static_cast<unsigned long long>(r.retries),
        r.p50_us, r.p99_us, r.max_us, static_cast<unsigned long long>(r.reads_with_position),
        NodeFigures(r, targets, true).c_str());
    return;
  }
  std::printf("load: %llu calls in %.1f s (%.0f/s)\n", static_cast<unsigned long long>(r.requests),
              r.elapsed_s, rate);
  std::printf(
      "  ok %llu, not found %llu, behind %llu, errors %llu, rejected (pool exhausted) %llu, "
      "retries %llu\n",
      static_cast<unsigned long long>(r.ok), static_cast<unsigned long long>(r.not_found),
      static_cast<unsigned long long>(r.behind), static_cast<unsigned long long>(r.errors),
      static_cast<unsigned long long>(r.rejections), static_cast<unsigned long long>(r.retries));
  std::printf("  latency p50 %.0f us, p99 %.0f us, max %.0f us\n", r.p50_us, r.p99_us, r.max_us);
  PrintFailuresByCode(r);
  if (targets.updater) {
    std::printf("  reads carrying a write's position (read-your-writes): %llu\n",
                static_cast<unsigned long long>(r.reads_with_position));
  }
  std::fputs(NodeFigures(r, targets, false).c_str(), stdout);
}

// Reads a recorded workload into a replay schedule.
int LoadReplay(const std::string& path, double speed, load::LoadOptions* load) {
  std::unique_ptr<trace::RecordingReader> reader;
  if (trace::Status s = trace::RecordingReader::Open(path, &reader); !s.ok()) {
    std::fprintf(stderr, "railyardctl: %s\n", s.ToString().c_str());
    return kExitUsage;
  }
  int64_t first = -1;
  for (auto cursor = reader->NewWorkloadCursor(0); cursor->Valid(); cursor->Next()) {
    const trace::WorkloadOp& op = cursor->op();
    if (!op.status.ok()) {
      std::fprintf(stderr, "railyardctl: skipping %s\n", op.status.ToString().c_str());
      continue;
    }
    if (first < 0) first = op.unix_ms;
    const char code = op.op == trace::WorkloadOpKind::kGet      ? 'g'
                      : op.op == trace::WorkloadOpKind::kDelete ? 'd'
                                                                : 'p';
    load->replay.push_back({std::chrono::milliseconds(op.unix_ms - first), code, op.key,
                            static_cast<size_t>(op.size)});
  }
  if (load->replay.empty()) {
    std::fprintf(stderr, "railyardctl: %s holds no workload to replay\n", path.c_str());
    return kExitUsage;
  }
  load->replay_speed = speed;
  std::fprintf(stderr, "load: replaying %zu operations from %s at %.2fx\n", load->replay.size(),
               path.c_str(), speed);
  return kExitOk;
}

// Runs the verifying load until the duration ends or a signal; exit 0 only if nothing was lost.
int RunVerify(const LoadCommandOptions& o) {
  if (!o.load.updater) {
    std::fprintf(stderr,
                 "railyardctl: --verify writes to one updater: name it with --updater host:port "
                 "(and its replicas with --read), a cluster file, or a single --server\n");
    return kExitUsage;
  }
  load::VerifyOptions options;
  options.updater = *o.load.updater;
  options.readers = o.load.servers;
  options.writers = std::min<size_t>(o.load.concurrency, 64);
  options.keys = std::min<uint64_t>(o.load.keys, uint64_t{1} << 26);
  options.value_size = std::max<size_t>(o.load.value_size, 32);
  options.pool_size = std::max(o.load.pool_size, options.writers);
  options.seed = o.load.seed;
  options.credentials = o.load.credentials;
  options.tls = o.load.tls;
  load::VerifyingLoad load(options, [json = o.json](const load::VerifyRound& r) {
    if (json) {
      std::printf(
          "{\"verify\":\"round\",\"round\":%llu,\"outage_s\":%.3f,\"checked\":%llu,"
          "\"lost\":%llu,\"wrong\":%llu,\"complete\":%s}\n",
          static_cast<unsigned long long>(r.round), r.outage_s,
          static_cast<unsigned long long>(r.checked), static_cast<unsigned long long>(r.lost),
          static_cast<unsigned long long>(r.wrong), r.complete ? "true" : "false");
    } else {
      std::printf(
          "verify round %llu: after a %.1f s outage checked %llu documents: %llu lost, "
          "%llu wrong%s\n",
          static_cast<unsigned long long>(r.round), r.outage_s,
          static_cast<unsigned long long>(r.checked), static_cast<unsigned long long>(r.lost),
          static_cast<unsigned long long>(r.wrong),
          r.complete ? "" : " (server went away again; checked again next round)");
    }
    std::fflush(stdout);
  });
  if (rpc::Status s = load.Start(); !s.ok()) {
    std::fprintf(stderr, "railyardctl: %s\n", s.ToString().c_str());
    return kExitUnreachable;
  }
  const StopSignal stop;
  const Clock::time_point end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                   std::chrono::duration<double>(o.duration_s));
  while (!stop.stopped() && Clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // A last check, so a run that saw no outage still proves its documents.
  const load::VerifyRound last = load.VerifyAll();
  load.Stop();
  const load::VerifyReport r = load.Report();
  if (o.json) {
    std::printf(
        "{\"verify\":\"summary\",\"writes_acked\":%llu,\"deletes_acked\":%llu,"
        "\"writes_failed\":%llu,\"rounds\":%llu,\"nodes\":%llu,\"checked\":%llu,\"lost\":%llu,"
        "\"wrong\":%llu,\"reads_checked\":%llu,\"stale_reads\":%llu,\"reads_failed\":%llu,"
        "\"last_round_complete\":%s}\n",
        static_cast<unsigned long long>(r.writes_acked),
        static_cast<unsigned long long>(r.deletes_acked),
        static_cast<unsigned long long>(r.writes_failed), static_cast<unsigned long long>(r.rounds),
        static_cast<unsigned long long>(last.nodes), static_cast<unsigned long long>(r.checked),
        static_cast<unsigned long long>(r.lost), static_cast<unsigned long long>(r.wrong),
        static_cast<unsigned long long>(r.reads_checked),
        static_cast<unsigned long long>(r.stale_reads),
        static_cast<unsigned long long>(r.reads_failed), last.complete ? "true" : "false");
  } else {
    std::printf(
        "verify: %llu writes acknowledged (%llu deletes), %llu failed (outcome unknown); %llu "
        "checks of %llu documents in all: %llu lost, %llu wrong; the last on %llu node(s)\n"
        "verify: %llu reads carrying their write's position checked during the run: %llu "
        "returned an older document (%llu not answered)\n",
        static_cast<unsigned long long>(r.writes_acked),
        static_cast<unsigned long long>(r.deletes_acked),
        static_cast<unsigned long long>(r.writes_failed), static_cast<unsigned long long>(r.rounds),
        static_cast<unsigned long long>(r.checked), static_cast<unsigned long long>(r.lost),
        static_cast<unsigned long long>(r.wrong), static_cast<unsigned long long>(last.nodes),
        static_cast<unsigned long long>(r.reads_checked),
        static_cast<unsigned long long>(r.stale_reads),
        static_cast<unsigned long long>(r.reads_failed));
  }
  return r.lost == 0 && r.wrong == 0 && r.stale_reads == 0 && last.complete ? kExitOk : kExitFailed;
}

// Whether the run sends doc.Put or doc.Delete.
bool Writes(const LoadCommandOptions& o) {
  if (o.verify) return true;
  if (o.load.replay.empty()) return o.load.read_fraction < 1.0;
  for (const load::ScheduledOp& op : o.load.replay) {
    if (op.op != 'g') return true;
  }
  return false;
}

// Fills o->load.updater and o->load.servers from the flags; false (having said why) if unusable.
bool CollectServers(LoadCommandOptions* o, LoadTargets* targets) {
  if (!ResolveLoadTargets(o->targets, Writes(*o), targets)) return false;
  o->load.updater = targets->updater;
  for (const LoadNode& node : targets->readers) o->load.servers.push_back(node.service);
  // One node takes the writes it serves reads for: a single client, as before roles existed.
  if (o->load.updater && o->load.servers.size() == 1 && o->load.servers[0] == *o->load.updater &&
      !o->verify) {
    o->load.updater.reset();
  }
  // A lone --server is its own updater for --verify.
  if (o->verify && !o->load.updater && o->load.servers.size() == 1) {
    o->load.updater = o->load.servers[0];
  }
  return true;
}

// Turns --distribution, --policy and --subset into o->load; false (having said why) if invalid.
bool ApplyBalancing(LoadCommandOptions* o) {
  o->load.distribution = o->distribution == "zipfian" ? load::KeyChooser::Distribution::kZipfian
                                                      : load::KeyChooser::Distribution::kUniform;
  const std::optional<balance::PolicyKind> policy = balance::ParsePolicyKind(o->policy);
  const std::optional<balance::SubsetMode> subset = balance::ParseSubsetMode(o->subset);
  if (!policy || !subset) {
    std::fprintf(stderr, "railyardctl: unknown --policy '%s' or --subset '%s'\n", o->policy.c_str(),
                 o->subset.c_str());
    return false;
  }
  if (*policy != balance::PolicyKind::kLowestSlot) {
    o->load.balance = balance::PolicyOptions{};
    o->load.balance->kind = *policy;
    o->load.balance->seed = o->load.seed;
  }
  o->load.subset_mode = *subset;
  o->load.subset_size = o->subset_size;
  if (*subset != balance::SubsetMode::kNone && o->subset_size == 0) {
    std::fprintf(stderr, "railyardctl: --subset %s needs --subset-size N\n", o->subset.c_str());
    return false;
  }
  if (o->client_index_given) o->load.client_index = o->client_index;
  if (*subset == balance::SubsetMode::kDeterministic && !o->client_index_given) {
    std::fprintf(stderr,
                 "railyardctl: --subset deterministic needs --client-index N: give the load "
                 "clients of these servers 0, 1, 2, ... in turn (without it each would take a "
                 "random, uneven subset)\n");
    return false;
  }
  return true;
}

// --record-workload: every operation the generator sends, appended from its threads.
class WorkloadRecording {
 public:
  // False (having said why) if the recording cannot be created.
  bool Create(const std::string& path) {
    trace::WriterOptions writer_options;
    writer_options.writer = "railyardctl load";
    if (trace::Status s = trace::RecordingWriter::Create(path, writer_options, &writer_); !s.ok()) {
      std::fprintf(stderr, "railyardctl: %s\n", s.ToString().c_str());
      return false;
    }
    return true;
  }

  // Null until Create succeeded. The observer refers to this object, which must outlive it.
  load::LoadGenerator::OpObserver Observer() {
    if (!writer_) return {};
    return [this](char op, uint64_t key, size_t size) {
      const int64_t now = node::UnixMillis(std::chrono::system_clock::now());
      const trace::WorkloadOpKind kind = op == 'g'   ? trace::WorkloadOpKind::kGet
                                         : op == 'd' ? trace::WorkloadOpKind::kDelete
                                                     : trace::WorkloadOpKind::kPut;
      std::lock_guard lock(mu_);
      writer_->AppendWorkload(now, kind, key, size);
    };
  }

  // True if nothing was recorded or the recording closed cleanly.
  bool Close() {
    if (!writer_) return true;
    std::lock_guard lock(mu_);
    if (trace::Status s = writer_->Close(); !s.ok()) {
      std::fprintf(stderr, "railyardctl: %s\n", s.ToString().c_str());
      return false;
    }
    return true;
  }

 private:
  std::unique_ptr<trace::RecordingWriter> writer_;
  std::mutex mu_;
};

// --admin-listen: serves the generator's pools (read and write, as one) and throughput as a
// client's telemetry. Sets
// *admin (left null without the flag); false (having said why) if it cannot start.
bool StartTelemetry(const LoadCommandOptions& o, load::LoadGenerator& generator,
                    std::unique_ptr<node::AdminService>* admin) {
  if (o.admin_listen.empty()) return true;
  const std::optional<rpc::Endpoint> at = rpc::ParseListenAddress(o.admin_listen);
  if (!at) {
    std::fprintf(stderr, "railyardctl: --admin-listen must be host:port\n");
    return false;
  }
  node::AdminOptions admin_options;
  admin_options.name = o.load.client_name;
  admin_options.host = at->host;
  admin_options.port = at->port;
  for (const auto& [path, tokens] :
       {std::pair{&o.admin_viewer_token_file, &admin_options.viewer_tokens},
        std::pair{&o.admin_operator_token_file, &admin_options.operator_tokens}}) {
    if (rpc::Status s = cluster::ReadTokenFile(*path, tokens); !s.ok()) {
      std::fprintf(stderr, "railyardctl: %s\n", s.ToString().c_str());
      return false;
    }
  }
  *admin = node::MakeClientAdminService(
      admin_options,
      // One identity: the write client shares the read client's id, so both pools are one.
      [&generator, name = o.load.client_name] {
        std::vector<rpc::PoolSnapshot> pools{generator.client().Snapshot()};
        if (rpc::Client* writes = generator.write_client()) pools.push_back(writes->Snapshot());
        return std::vector<node::NamedPool>{{name, node::MergePools(std::move(pools))}};
      },
      // The generator's own per-method view too, as before pools carried client figures.
      [&generator](admin::Telemetry* t) {
        node::FillThroughput(generator.stats(), t->mutable_throughput());
      });
  if (rpc::Status s = (*admin)->Start(); !s.ok()) {
    std::fprintf(stderr, "railyardctl: admin service: %s\n", s.ToString().c_str());
    return false;
  }
  std::fprintf(stderr, "load: telemetry on %s\n", (*admin)->endpoint().ToString().c_str());
  return true;
}

// Prints progress until the duration ends, the workload is done or Ctrl-C/SIGTERM (which ends
// the run early, with a summary); then stops the generator.
void RunToTheEnd(const LoadCommandOptions& o, load::LoadGenerator& generator, bool tty) {
  const StopSignal stop;
  const Clock::time_point end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                   std::chrono::duration<double>(o.duration_s));
  Clock::time_point next_progress = Clock::now() + std::chrono::milliseconds(o.progress_ms);
  while (!stop.stopped() && Clock::now() < end && !generator.finished()) {
    // Until the next progress line or the end, and at most 100 ms (finished() is not signalled).
    const Clock::time_point wake =
        std::min({next_progress, end, Clock::now() + std::chrono::milliseconds(100)});
    stop.SleepFor(std::chrono::ceil<std::chrono::milliseconds>(wake - Clock::now()));
    if (Clock::now() >= next_progress) {
      PrintProgress(generator.Result(), tty);
      next_progress += std::chrono::milliseconds(o.progress_ms);
    }
  }
  generator.Stop();
}

}  // namespace

void PrintFailuresByCode(const load::LoadResult& r) {
  for (const auto& [code, count] : r.errors_by_code) {
    const auto first = r.first_error_by_code.find(code);
    std::printf(
        "  %s: %llu%s%s\n", code.c_str(), static_cast<unsigned long long>(count),
        first == r.first_error_by_code.end() || first->second.empty() ? "" : ", the first: ",
        first == r.first_error_by_code.end() ? "" : first->second.c_str());
  }
}

CLI::App* AddLoadCommand(CLI::App& app, LoadCommandOptions& o) {
  CLI::App* load = app.add_subcommand("load", "Send a docservice workload to a cluster and report");
  LoadTargetFlags& t = o.targets;
  load->add_option("--updater", t.updater,
                   "The updater's docservice host:port: every write (doc.Put, doc.Delete) goes "
                   "here");
  load->add_option("--read", t.read,
                   "Docservices to balance reads over, host:port,... (the updater and its "
                   "replicas; default: the updater alone). Reads of documents this load wrote "
                   "carry the write's position, so no replica answers with an older copy")
      ->delimiter(',');
  load->add_option("--cluster", t.cluster_file,
                   "Cluster file: writes to its updater, reads over every node; roles from the "
                   "file (role: \"updater\" / \"replica\"), else from each node's telemetry")
      ->check(CLI::ExistingFile);
  load->add_option("--token-file", t.token_file,
                   "Viewer token for asking nodes their role (else $RAILYARD_TOKEN)");
  load->add_option("--data-token-file", o.data_token_file,
                   "A docservice token to present (its first line): a writer's, or a reader's "
                   "with --read-fraction 1; for docservices with data_*_token_file")
      ->check(CLI::ExistingFile);
  AddDataTlsOptions(*load, o.data_tls);
  load->add_option("-s,--server", t.servers,
                   "Docservice host:port (repeatable): one node takes reads and writes; several "
                   "take reads only, unless --unreplicated");
  load->add_flag("--unreplicated", t.unreplicated,
                 "The --server nodes are independent stores (not one updater and its replicas): "
                 "balance writes over them too");
  load->add_option("--concurrency", o.load.concurrency, "Calls kept in flight (closed loop)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  load->add_option("--rate", o.load.rate, "Calls per second (open loop); 0: closed loop")
      ->check(CLI::Range(0.0, 1e7))
      ->capture_default_str();
  load->add_option("--read-fraction", o.load.read_fraction, "Share of calls that are doc.Get")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  load->add_option("--keys", o.load.keys, "Size of the key space")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40))
      ->capture_default_str();
  load->add_option("--distribution", o.distribution, "uniform or zipfian")
      ->check(CLI::IsMember({"uniform", "zipfian"}))
      ->capture_default_str();
  load->add_option("--zipf-theta", o.load.zipf_theta, "Skew of the zipfian keys")
      ->check(CLI::Range(0.01, 0.999))
      ->capture_default_str();
  load->add_option("--value-size", o.load.value_size, "Bytes per document written")
      ->check(CLI::Range(size_t{0}, size_t{16} << 20))
      ->capture_default_str();
  load->add_option("--duration-s", o.duration_s, "How long to run")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
  load->add_option("--pool-size", o.load.pool_size, "Connections in the client pool")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  load->add_option("--write-pool-size", o.load.write_pool_size,
                   "Connections in the write client's pool, to the updater (default: --pool-size)")
      ->check(CLI::Range(1, 100000));
  load->add_option("--progress-ms", o.progress_ms, "Progress line interval")
      ->check(CLI::Range(100, 60000))
      ->capture_default_str();
  load->add_option("--name", o.load.client_name,
                   "The name this client gives the servers it connects to and its telemetry")
      ->check([](const std::string& name) {
        return name.empty() ? std::string("the name must not be empty") : std::string();
      })
      ->capture_default_str();
  load->add_option("--admin-listen", o.admin_listen,
                   "Expose this client's telemetry (its pool, read and write clients as one, and "
                   "client-seen rates, rejections, "
                   "retries and latency) on host:port (e.g. 127.0.0.1:0). Without the two "
                   "--admin-*-token-file flags it is open: any caller may read it, with or "
                   "without a token");
  load->add_option("--admin-viewer-token-file", o.admin_viewer_token_file,
                   "Viewer tokens the --admin-listen service accepts, one per line (as a node's)")
      ->check(CLI::ExistingFile);
  load->add_option("--admin-operator-token-file", o.admin_operator_token_file,
                   "Operator tokens the --admin-listen service accepts, one per line (it runs no "
                   "commands, but an operator may read its telemetry)")
      ->check(CLI::ExistingFile);
  load->add_flag("--json", o.json, "Print the summary as one JSON line");
  load->add_option("--record-workload", o.record_workload,
                   "Record every operation sent (time, op, key, size) into this recording");
  load->add_option("--replay", o.replay, "Replay the workload recorded in this file")
      ->check(CLI::ExistingFile);
  load->add_option("--replay-speed", o.replay_speed, "Replay at this multiple of the recorded rate")
      ->check(CLI::Range(0.01, 1000.0))
      ->capture_default_str();
  load->add_option("--policy", o.policy,
                   "Balancing policy: lowest-slot (Boxcar's fast path), round-robin, "
                   "least-loaded, weighted or adaptive")
      ->check(CLI::IsMember({"lowest-slot", "round-robin", "least-loaded", "weighted", "adaptive"}))
      ->capture_default_str();
  load->add_option("--subset", o.subset, "Subsetting: none, random or deterministic")
      ->check(CLI::IsMember({"none", "random", "deterministic"}))
      ->capture_default_str();
  load->add_option("--subset-size", o.subset_size, "Servers per client when subsetting")
      ->check(CLI::Range(size_t{1}, size_t{100000}));
  load->add_option("--client-index", o.client_index,
                   "This client's position among the load clients of these servers (0, 1, 2, "
                   "...): deterministic subsetting spreads consecutive indexes evenly, and needs "
                   "one");
  load->add_flag("--verify", o.verify,
                 "Verifying mode: writes (puts and deletes) versioned documents to the updater, "
                 "remembers every acknowledged one, checks that reads carrying a write's position "
                 "never see an older document on any node, and each time the cluster comes back "
                 "from an outage and at the end reads them all back from every node; prints what "
                 "it checked and what it lost, and fails on any loss or stale read");
  load->footer(
      "Examples:\n"
      "  railyardctl load --updater 127.0.0.1:7000 --read 127.0.0.1:7000,127.0.0.1:7010\n"
      "  railyardctl load --cluster cluster.textproto --verify --duration-s 30\n"
      "  railyardctl load -s 127.0.0.1:7000          (one node: reads and writes)\n"
      "The summary gives each node's reads and writes by role.\n"
      "Exit codes: 0 no call failed (with --verify: nothing lost, no stale read), 1 otherwise, "
      "2 usage, 4 unreachable.");
  load->callback([load, &o] {
    o.duration_given = load->count("--duration-s") > 0;
    o.client_index_given = load->count("--client-index") > 0;
  });
  return load;
}

// Reads --data-token-file's first token into the load's credentials; false (having said why) if
// it cannot be read or holds none.
bool ReadDataToken(LoadCommandOptions* o) {
  if (o->data_token_file.empty()) return true;
  std::vector<std::string> tokens;
  rpc::Status s = cluster::ReadTokenFile(o->data_token_file, &tokens);
  if (s.ok() && tokens.empty()) {
    s = {rpc::Code::kInvalidArgument, o->data_token_file + " holds no token"};
  }
  if (!s.ok()) {
    std::fprintf(stderr, "railyardctl: --data-token-file: %s\n", s.ToString().c_str());
    return false;
  }
  o->load.credentials = tokens.front();
  return true;
}

int RunLoad(LoadCommandOptions o) {
  if (!ApplyBalancing(&o) || !ReadDataToken(&o)) return kExitUsage;
  if (!DataTlsOf(o.data_tls, &o.load.tls)) return kExitUsage;
  if (!o.verify && !o.replay.empty()) {
    if (int rc = LoadReplay(o.replay, o.replay_speed, &o.load); rc != kExitOk) return rc;
    if (!o.duration_given) o.duration_s = 1e9;  // Until the workload is done.
  }
  LoadTargets targets;
  if (!CollectServers(&o, &targets)) return kExitUsage;
  if (o.verify) return RunVerify(o);
  WorkloadRecording workload;
  if (!o.record_workload.empty() && !workload.Create(o.record_workload)) return kExitUsage;
  load::LoadGenerator generator(o.load, workload.Observer());
  std::unique_ptr<node::AdminService> admin;
  if (!StartTelemetry(o, generator, &admin)) return kExitUsage;

  if (rpc::Status s = generator.Start(); !s.ok()) {
    std::fprintf(stderr, "railyardctl: %s\n", s.ToString().c_str());
    return kExitUnreachable;
  }
  const bool tty = isatty(STDERR_FILENO);
  RunToTheEnd(o, generator, tty);
  const load::LoadResult report = generator.Result();
  if (tty) std::fputc('\n', stderr);
  PrintSummary(report, targets, o.json);
  if (admin) admin->Stop();
  if (!workload.Close()) return kExitFailed;
  return report.errors == 0 ? kExitOk : kExitFailed;
}

}  // namespace railyard::ctl
