// SPDX-License-Identifier: Apache-2.0
// railyard-node: serves the docstore over Boxcar, with an admin service beside it.
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <optional>

#include "app/parse_command_line.h"
#include "app/railyard-node/check_config.h"
#include "app/railyard-node/effective_settings.h"
#include "app/railyard-node/hangup.h"
#include "app/railyard-node/journal_sink.h"
#include "app/railyard-node/serve_loop.h"
#include "app/railyard-node/systemd_notify.h"
#include "core/node/config.h"
#include "core/node/node.h"
#include "core/node/token_reload.h"
#include "core/rpc/tls.h"

namespace {

// Logs with levels to stderr, or to journald when stderr goes there anyway (under systemd) or
// `journal` asks for it, and, if asked, to a file as well.
bool SetUpLogging(const std::string& level, const std::string& file, bool journal) {
  std::vector<spdlog::sink_ptr> sinks;
  if (journal || StderrIsJournal()) {
    sinks.push_back(std::make_shared<JournalSink>());
  } else {
    sinks.push_back(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  }
  if (!file.empty()) {
    try {
      sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_mt>(file));
    } catch (const spdlog::spdlog_ex& e) {
      std::fprintf(stderr, "railyard-node: cannot open log file %s: %s\n", file.c_str(), e.what());
      return false;
    }
  }
  auto logger = std::make_shared<spdlog::logger>("railyard-node", sinks.begin(), sinks.end());
  logger->set_level(spdlog::level::from_str(level.empty() ? "info" : level));
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
  return true;
}

// --PREFIX-cert, --PREFIX-key and --PREFIX-client-ca for one listener.
struct TlsFlags {
  std::string cert, key, client_ca;
};

void AddTlsFlags(CLI::App& app, const std::string& prefix, const std::string& listener,
                 TlsFlags& flags) {
  app.add_option(prefix + "-cert", flags.cert,
                 listener + " TLS certificate chain (PEM); turns TLS on")
      ->check(CLI::ExistingFile);
  app.add_option(prefix + "-key", flags.key, listener + " TLS private key (PEM)")
      ->check(CLI::ExistingFile);
  app.add_option(
         prefix + "-client-ca", flags.client_ca,
         listener + " listener: require clients to present a certificate signed by these CAs")
      ->check(CLI::ExistingFile);
}

// Flags override the config file's block.
void ApplyTlsFlags(const TlsFlags& flags, railyard::config::TlsConfig* config) {
  if (!flags.cert.empty()) config->set_cert_file(flags.cert);
  if (!flags.key.empty()) config->set_key_file(flags.key);
  if (!flags.client_ca.empty()) config->set_client_ca_file(flags.client_ca);
}

// Every flag; each one given overrides the config file's setting.
struct NodeFlags {
  std::string config_path;
  std::string sync, viewer_token_file, operator_token_file, log_file, log_level;
  uint64_t memtable_entries = 0, bloom_budget_mb = 0;
  int64_t flight_recorder_mib = -1;  // -1: the config file's, or the default.
  uint32_t grace_ms = 0;
  std::string name, data_dir, listen, admin_listen;
  TlsFlags tls, admin_tls;
  std::string role, follow, replication_token_file;
  std::string data_reader_token_file, data_writer_token_file;
  std::string follow_tls_ca, follow_tls_cert, follow_tls_key;
  std::string metrics_listen, metrics_token_file;
  TlsFlags metrics_tls;
  std::optional<uint64_t> doc_cache_mb;
  std::optional<uint32_t> io_threads, worker_threads;
  std::string request_threads;
  int fault_corrupt_sends = 0;
  bool check_config = false;
  bool log_journal = false;
};

void AddNodeFlags(CLI::App& app, NodeFlags& f) {
  app.add_option("-c,--config", f.config_path, "Config file (protobuf text format, see resources/)")
      ->check(CLI::ExistingFile);
  app.add_option("--name", f.name, "Node name in logs and telemetry");
  app.add_option("--data-dir", f.data_dir, "Directory of the docstore");
  app.add_option("--listen", f.listen, "Docservice address host:port (port 0: any)");
  app.add_option("--admin-listen", f.admin_listen, "Admin address host:port (default 127.0.0.1:0)");
  AddTlsFlags(app, "--tls", "Docservice", f.tls);
  AddTlsFlags(app, "--admin-tls", "Admin", f.admin_tls);
  app.add_option("--sync", f.sync, "none, interval or every-write")
      ->check(CLI::IsMember({"none", "interval", "every-write"}));
  app.add_option("--memtable-entries", f.memtable_entries, "In-memory index size in entries");
  app.add_option("--flight-recorder-mib", f.flight_recorder_mib,
                 "Memory for the flight recorder (the last 15 min of telemetry in full, 24 h in "
                 "10 s buckets; kept in DATA_DIR/flight; railyardctl record --since). Default 16; "
                 "0: none")
      ->check(CLI::Range(0, 65536));
  app.add_option("--bloom-budget-mb", f.bloom_budget_mb, "Memory for resident Bloom pages");
  app.add_option("--viewer-token-file", f.viewer_token_file, "Viewer tokens, one per line");
  app.add_option("--operator-token-file", f.operator_token_file, "Operator tokens, one per line");
  app.add_option("--data-reader-token-file", f.data_reader_token_file,
                 "Docservice tokens that may get documents, one per line (clients present one in "
                 "their hello; default: the docservice is open)");
  app.add_option("--data-writer-token-file", f.data_writer_token_file,
                 "Docservice tokens that may also put and delete documents, one per line");
  app.add_option("--role", f.role,
                 "updater (takes writes, default) or replica (follows --follow, serves reads)")
      ->check(CLI::IsMember({"updater", "replica"}));
  app.add_option("--follow", f.follow, "A replica's updater: its docservice host:port");
  app.add_option("--replication-token-file", f.replication_token_file,
                 "Updater: tokens replicas must present, one per line; replica: the first line "
                 "is the token it presents");
  app.add_option("--follow-tls-ca", f.follow_tls_ca,
                 "A replica reaches its updater over TLS, trusting these CAs (PEM)");
  app.add_option("--follow-tls-cert", f.follow_tls_cert,
                 "...presenting this client certificate (PEM; replaces the token where the "
                 "updater requires certificates)");
  app.add_option("--follow-tls-key", f.follow_tls_key, "...and its key (PEM)");
  app.add_option("--metrics-listen", f.metrics_listen,
                 "HTTP address host:port for /metrics, /healthz and /readyz (default: off)");
  AddTlsFlags(app, "--metrics-tls", "Metrics", f.metrics_tls);
  app.add_option("--metrics-token-file", f.metrics_token_file,
                 "Bearer tokens /metrics requires, one per line");
  app.add_option("--doc-cache-mb", f.doc_cache_mb,
                 "Document cache in MiB (default 0: off; see docs/benchmarks.md)");
  app.add_option("--io-threads", f.io_threads,
                 "Threads reading and writing the docservice's connections and running its calls "
                 "(default 0: half the cores the process may use, at least one)")
      ->check(CLI::Range(0u, 1024u));
  app.add_option("--worker-threads", f.worker_threads,
                 "Threads running docservice calls that wait (default 0: 16); see "
                 "docs/benchmarks.md, \"The docservice against Redis\"")
      ->check(CLI::Range(0u, 1024u));
  app.add_option("--request-threads", f.request_threads,
                 "Where docservice calls run: io (default: on the I/O threads, moving to a worker "
                 "only to wait) or workers (every call on a worker: for a store much larger than "
                 "memory on a slow disk)")
      ->check(CLI::IsMember({"io", "workers"}));
  // Tests only: damages the first N replication replies in transit (the replica must refetch).
  app.add_option("--fault-corrupt-sends", f.fault_corrupt_sends)->group("");
  app.add_option("--grace-ms", f.grace_ms,
                 "Lame-duck grace period on SIGTERM (default 30000); the drain ends sooner once "
                 "nothing is in flight and no request came for 500 ms");
  app.add_option("--log-file", f.log_file, "Also write logs here");
  app.add_flag("--log-journal", f.log_journal,
               "Log to journald (with priorities and fields) instead of stderr; the default when "
               "stderr is the journal");
  app.add_flag("--check-config", f.check_config,
               "Check the config (with the other flags applied) and exit: 0 usable, 1 not; binds "
               "nothing. Run it as the service's user to check its permissions");
  app.add_option("--log-level", f.log_level, "trace, debug, info, warn, error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
}

void ApplyFlags(const NodeFlags& f, railyard::config::NodeConfig* config) {
  if (!f.name.empty()) config->set_name(f.name);
  if (!f.data_dir.empty()) config->set_data_dir(f.data_dir);
  if (!f.listen.empty()) config->set_listen(f.listen);
  if (!f.admin_listen.empty()) config->set_admin_listen(f.admin_listen);
  ApplyTlsFlags(f.tls, config->mutable_tls());
  ApplyTlsFlags(f.admin_tls, config->mutable_admin_tls());
  if (!f.sync.empty()) config->mutable_storage()->set_sync(f.sync);
  if (f.memtable_entries) config->mutable_storage()->set_memtable_entries(f.memtable_entries);
  if (f.flight_recorder_mib >= 0) {
    config->set_flight_recorder_mib(static_cast<uint32_t>(f.flight_recorder_mib));
  }
  if (f.bloom_budget_mb) {
    config->mutable_storage()->set_bloom_budget_bytes(f.bloom_budget_mb << 20);
  }
  if (!f.viewer_token_file.empty()) config->set_viewer_token_file(f.viewer_token_file);
  if (!f.operator_token_file.empty()) config->set_operator_token_file(f.operator_token_file);
  if (!f.data_reader_token_file.empty()) {
    config->set_data_reader_token_file(f.data_reader_token_file);
  }
  if (!f.data_writer_token_file.empty()) {
    config->set_data_writer_token_file(f.data_writer_token_file);
  }
  if (f.grace_ms) config->set_grace_ms(f.grace_ms);
  if (!f.role.empty()) config->set_role(f.role);
  if (!f.follow.empty()) config->set_follow(f.follow);
  if (!f.replication_token_file.empty()) {
    config->set_replication_token_file(f.replication_token_file);
  }
  if (!f.follow_tls_ca.empty()) config->mutable_follow_tls()->set_ca_file(f.follow_tls_ca);
  if (!f.follow_tls_cert.empty()) config->mutable_follow_tls()->set_cert_file(f.follow_tls_cert);
  if (!f.follow_tls_key.empty()) config->mutable_follow_tls()->set_key_file(f.follow_tls_key);
  if (!f.metrics_listen.empty()) config->set_metrics_listen(f.metrics_listen);
  if (!f.metrics_tls.cert.empty() || !f.metrics_tls.key.empty() ||
      !f.metrics_tls.client_ca.empty()) {
    ApplyTlsFlags(f.metrics_tls, config->mutable_metrics_tls());
  }
  if (!f.metrics_token_file.empty()) config->set_metrics_token_file(f.metrics_token_file);
  if (f.doc_cache_mb) config->mutable_storage()->set_doc_cache_bytes(*f.doc_cache_mb << 20);
  if (f.io_threads) config->set_io_threads(*f.io_threads);
  if (f.worker_threads) config->set_worker_threads(*f.worker_threads);
  if (!f.request_threads.empty()) config->set_request_threads(f.request_threads);
  if (!f.log_file.empty()) config->set_log_file(f.log_file);
  if (!f.log_level.empty()) config->set_log_level(f.log_level);
}

// The config file with the flags applied; false (having said why) if it is unusable.
bool MakeConfig(const NodeFlags& flags, railyard::config::NodeConfig* config) {
  if (!flags.config_path.empty()) {
    if (railyard::rpc::Status s = railyard::node::LoadNodeConfig(flags.config_path, config);
        !s.ok()) {
      std::fprintf(stderr, "railyard-node: %s\n", s.message().c_str());
      return false;
    }
  }
  ApplyFlags(flags, config);
  if (config->data_dir().empty()) {
    std::fprintf(stderr,
                 "railyard-node: no data directory: give --data-dir or data_dir in --config\n");
    return false;
  }
  return true;
}

// --check-config: every problem on its own line, then a one-line verdict. Returns the exit code.
int CheckConfig(const NodeFlags& flags) {
  const std::string what =
      flags.config_path.empty() ? std::string("the flags") : "config " + flags.config_path;
  railyard::config::NodeConfig config;
  std::vector<std::string> problems;
  if (!flags.config_path.empty()) {
    if (railyard::rpc::Status s = railyard::node::LoadNodeConfig(flags.config_path, &config);
        !s.ok()) {
      problems.push_back(s.message());  // Names the line and column.
    }
  }
  if (problems.empty()) {
    ApplyFlags(flags, &config);
    problems = ConfigProblems(config);
  }
  for (const std::string& problem : problems) {
    std::fprintf(stderr, "railyard-node: %s\n", problem.c_str());
  }
  if (problems.empty()) {
    std::fprintf(stderr, "railyard-node: %s: OK\n", what.c_str());
    return 0;
  }
  std::fprintf(stderr, "railyard-node: %s: FAILED (%zu problem%s)\n", what.c_str(), problems.size(),
               problems.size() == 1 ? "" : "s");
  return 1;
}

// The SRE chapter's rule of thumb is 10 s to 150 s, by client complexity. Railyard's calls are
// single requests (5 s default deadline; an updater's repl.Fetch waits at most 2 s), so 30 s
// covers the slowest typical one several times. It costs nothing when clients behave: the drain
// ends as soon as nothing is in flight and no request came for rpc::kDefaultDrainQuiet.
constexpr uint32_t kDefaultGraceMs = 30000;

// Opens the node, serves until SIGTERM or SIGINT, drains and closes. Returns the exit code.
int Serve(const railyard::config::NodeConfig& config, const NodeFlags& flags) {
  railyard::node::NodeOptions options;
  if (railyard::rpc::Status s = railyard::node::NodeOptionsFrom(config, &options); !s.ok()) {
    spdlog::error("{}", s.message());
    return 2;
  }
  options.replication.corrupt_first_sends = flags.fault_corrupt_sends;
  const auto grace =
      std::chrono::milliseconds(config.grace_ms() ? config.grace_ms() : kDefaultGraceMs);
  spdlog::info("{}", DescribeEffectiveSettings(options, config, grace));
  std::unique_ptr<railyard::node::Node> node;
  if (railyard::rpc::Status s = railyard::node::Node::Open(options, &node); !s.ok()) {
    spdlog::error("{}", s.ToString());
    return 1;
  }
  // SIGHUP reloads the admin token files (and never stops the node), from before it says LISTEN.
  railyard::node::TokenReloader reloader(config, *node, options.admin.viewer_tokens,
                                         options.admin.operator_tokens, options.data_access);
  SystemdNotifier notifier;
  HangupHandler hangup([&reloader, &notifier] {
    notifier.Reloading();
    reloader.Reload();
    notifier.Reloaded();
  });
  spdlog::info("node {} ({}) serving {} ({}) from {}; admin on {} ({})", options.name,
               options.replication.replica ? "replica of " + options.replication.follow
                                           : std::string("updater"),
               node->endpoint().ToString(), railyard::rpc::DescribeServerTls(options.tls),
               options.data_dir, node->admin_endpoint().ToString(),
               railyard::rpc::DescribeServerTls(options.admin.tls));
  ServeLoop loop(*node, grace, notifier);
  // Machine-readable for scripts and tests that started us with port 0.
  std::printf("LISTEN %s ADMIN %s\n", node->endpoint().ToString().c_str(),
              node->admin_endpoint().ToString().c_str());
  if (const auto metrics = node->monitoring_endpoint()) {
    std::printf("METRICS %s\n", metrics->ToString().c_str());
  }
  std::fflush(stdout);

  loop.Run();
  node->Shutdown(std::chrono::milliseconds(0));  // Server already drained: flush and close.
  spdlog::info("node {} stopped cleanly", options.name);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "railyard-node: serves the docstore over Boxcar, with an authenticated admin service"};
  app.set_version_flag("--version", std::string("railyard-node ") + RAILYARD_VERSION);
  NodeFlags flags;
  AddNodeFlags(app, flags);
  if (auto exit_code = railyard::app::ParseCommandLine(app, argc, argv)) return *exit_code;

  if (flags.check_config) return CheckConfig(flags);
  railyard::config::NodeConfig config;
  if (!MakeConfig(flags, &config)) return 2;
  if (!SetUpLogging(config.log_level(), config.log_file(), flags.log_journal)) return 2;
  return Serve(config, flags);
}
