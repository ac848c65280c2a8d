// SPDX-License-Identifier: Apache-2.0
// A Boxcar server process for tests: serves the test methods on 127.0.0.1, prints "PORT <n>" on
// stdout once listening, and drains on SIGTERM like a production server.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include <cstdio>

#include "core/rpc/signals.h"
#include "tests/rpc/rpc_test_support.h"

int main(int argc, char** argv) {
  CLI::App app{"Boxcar test server"};
  std::string name = "test-server";
  int service_us = 0;
  int grace_ms = 2000;
  app.add_option("--name", name);
  app.add_option("--service-us", service_us, "Work per echo request")
      ->check(CLI::Range(0, 10000000));
  app.add_option("--grace-ms", grace_ms, "Lame duck grace period on SIGTERM")
      ->check(CLI::Range(0, 600000));
  CLI11_PARSE(app, argc, argv);
  spdlog::set_default_logger(spdlog::stderr_color_mt("server"));  // stdout carries the port.

  railyard::rpc::testing::TestServer server =
      railyard::rpc::testing::StartTestServer(name, std::chrono::microseconds(service_us));
  std::printf("PORT %u\n", static_cast<unsigned>(server.server->port()));
  std::fflush(stdout);
  railyard::rpc::ServeUntilSignalled(*server.server, std::chrono::milliseconds(grace_ms));
  return 0;
}
