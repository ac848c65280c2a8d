// railyard-node: serves the docstore over Boxcar, with an admin service beside it.
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "core/node/config.h"
#include "core/node/node.h"
#include "core/rpc/signals.h"

namespace {

// Logs with levels to stderr and, if asked, to a file as well.
bool SetUpLogging(const std::string& level, const std::string& file) {
  std::vector<spdlog::sink_ptr> sinks{std::make_shared<spdlog::sinks::stderr_color_sink_mt>()};
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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "railyard-node: serves the docstore over Boxcar, with an authenticated admin service"};
  app.set_version_flag("--version", std::string("railyard-node ") + RAILYARD_VERSION);
  std::string config_path;
  std::string sync, viewer_token_file, operator_token_file, log_file, log_level;
  uint64_t memtable_entries = 0, bloom_budget_mb = 0;
  uint32_t grace_ms = 0;
  std::string name, data_dir, listen, admin_listen;
  TlsFlags tls, admin_tls;
  app.add_option("-c,--config", config_path, "Config file (protobuf text format, see resources/)")
      ->check(CLI::ExistingFile);
  app.add_option("--name", name, "Node name in logs and telemetry");
  app.add_option("--data-dir", data_dir, "Directory of the docstore");
  app.add_option("--listen", listen, "Docservice address host:port (port 0: any)");
  app.add_option("--admin-listen", admin_listen, "Admin address host:port (default 127.0.0.1:0)");
  AddTlsFlags(app, "--tls", "Docservice", tls);
  AddTlsFlags(app, "--admin-tls", "Admin", admin_tls);
  app.add_option("--sync", sync, "none, interval or every-write")
      ->check(CLI::IsMember({"none", "interval", "every-write"}));
  app.add_option("--memtable-entries", memtable_entries, "In-memory index size in entries");
  app.add_option("--bloom-budget-mb", bloom_budget_mb, "Memory for resident Bloom pages");
  app.add_option("--viewer-token-file", viewer_token_file, "Viewer tokens, one per line");
  app.add_option("--operator-token-file", operator_token_file, "Operator tokens, one per line");
  app.add_option("--grace-ms", grace_ms, "Lame-duck grace period on SIGTERM (default 5000)");
  app.add_option("--log-file", log_file, "Also write logs here");
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  CLI11_PARSE(app, argc, argv);

  railyard::config::NodeConfig config;
  if (!config_path.empty()) {
    if (railyard::rpc::Status s = railyard::node::LoadNodeConfig(config_path, &config); !s.ok()) {
      std::fprintf(stderr, "railyard-node: %s\n", s.message().c_str());
      return 2;
    }
  }
  // Flags override the file.
  if (!name.empty()) config.set_name(name);
  if (!data_dir.empty()) config.set_data_dir(data_dir);
  if (!listen.empty()) config.set_listen(listen);
  if (!admin_listen.empty()) config.set_admin_listen(admin_listen);
  ApplyTlsFlags(tls, config.mutable_tls());
  ApplyTlsFlags(admin_tls, config.mutable_admin_tls());
  if (!sync.empty()) config.mutable_storage()->set_sync(sync);
  if (memtable_entries) config.mutable_storage()->set_memtable_entries(memtable_entries);
  if (bloom_budget_mb) config.mutable_storage()->set_bloom_budget_bytes(bloom_budget_mb << 20);
  if (!viewer_token_file.empty()) config.set_viewer_token_file(viewer_token_file);
  if (!operator_token_file.empty()) config.set_operator_token_file(operator_token_file);
  if (grace_ms) config.set_grace_ms(grace_ms);
  if (!log_file.empty()) config.set_log_file(log_file);
  if (!log_level.empty()) config.set_log_level(log_level);
  if (config.data_dir().empty()) {
    std::fprintf(stderr,
                 "railyard-node: no data directory: give --data-dir or data_dir in --config\n");
    return 2;
  }
  if (!SetUpLogging(config.log_level(), config.log_file())) return 2;

  railyard::node::NodeOptions options;
  if (railyard::rpc::Status s = railyard::node::NodeOptionsFrom(config, &options); !s.ok()) {
    spdlog::error("{}", s.message());
    return 2;
  }
  std::unique_ptr<railyard::node::Node> node;
  if (railyard::rpc::Status s = railyard::node::Node::Open(options, &node); !s.ok()) {
    spdlog::error("{}", s.ToString());
    return 1;
  }
  spdlog::info("node {} serving {} ({}) from {}; admin on {} ({})", options.name,
               node->endpoint().ToString(), railyard::rpc::DescribeServerTls(options.tls),
               options.data_dir, node->admin_endpoint().ToString(),
               railyard::rpc::DescribeServerTls(options.admin.tls));
  // Machine-readable for scripts and tests that started us with port 0.
  std::printf("LISTEN %s ADMIN %s\n", node->endpoint().ToString().c_str(),
              node->admin_endpoint().ToString().c_str());
  std::fflush(stdout);

  const auto grace = std::chrono::milliseconds(config.grace_ms() ? config.grace_ms() : 5000);
  railyard::rpc::ServeUntilSignalled(node->server(), grace);
  node->Shutdown(std::chrono::milliseconds(0));  // Server already drained: flush and close.
  spdlog::info("node {} stopped cleanly", options.name);
  return 0;
}
