// SPDX-License-Identifier: Apache-2.0
// A Greeter client: --callers threads call greeter.Greet in a closed loop over every --server,
// which Boxcar balances (each server hands this client its lowest free slot; a drained server's
// calls move to the others). Runs for --seconds (0: until SIGTERM or SIGINT), then prints how
// many calls each server answered. Exits 1 if any call failed.
#include <railyard/core/rpc/client.h>
#include <railyard/core/rpc/endpoint.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "flags.h"
#include "greeter.boxcar.h"

namespace {

namespace rpc = railyard::rpc;
using Clock = std::chrono::steady_clock;

constexpr const char* kUsage =
    "usage: greeter_client --server HOST:PORT [--server HOST:PORT...] [--seconds N]\n"
    "                      [--callers N] [--pause-ms N] [--name NAME]\n"
    "Calls greeter.Greet from --callers threads (default 4), each pausing --pause-ms (default 0)\n"
    "between calls, for --seconds (default 10; 0: until SIGTERM or SIGINT) and prints the calls\n"
    "each server answered.\n";

// Set by the signal handler, read by the callers: a lock-free atomic is safe in both.
std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free);
void OnSignal(int) { g_stop.store(true); }

int Usage(const std::string& error) {
  std::fprintf(stderr, "greeter_client: %s\n%s", error.c_str(), kUsage);
  return 2;
}

// What the callers saw: calls per answering server, and failures with the first reason.
class Tally {
 public:
  void Answered(const std::string& server) {
    std::lock_guard<std::mutex> lock(mu_);
    ++by_server_[server];
  }
  void Failed(const rpc::Status& status) {
    std::lock_guard<std::mutex> lock(mu_);
    if (failed_++ == 0) first_failure_ = status.ToString();
  }
  int Print() const {
    std::lock_guard<std::mutex> lock(mu_);
    uint64_t answered = 0;
    std::string servers;
    for (const auto& [server, calls] : by_server_) {
      answered += calls;
      servers += " " + server + "=" + std::to_string(calls);
    }
    std::printf("greeter_client: %llu calls answered, %llu failed;%s\n",
                static_cast<unsigned long long>(answered), static_cast<unsigned long long>(failed_),
                servers.c_str());
    if (failed_ > 0) std::printf("first failure: %s\n", first_failure_.c_str());
    return failed_ == 0 ? 0 : 1;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, uint64_t> by_server_;
  uint64_t failed_ = 0;
  std::string first_failure_;
};

}  // namespace

int main(int argc, char** argv) {
  std::string error;
  const std::optional<greeter::Flags> flags = greeter::Flags::Parse(
      argc, argv, {"--server", "--seconds", "--callers", "--pause-ms", "--name"}, &error);
  if (!flags) return Usage(error);
  if (flags->help()) {
    std::printf("%s", kUsage);
    return 0;
  }
  rpc::ClientOptions options;
  options.client_name = flags->Get("--name", "greeter-client");
  for (const std::string& server : flags->All("--server")) {
    const std::optional<rpc::Endpoint> endpoint = rpc::ParseEndpoint(server);
    if (!endpoint) return Usage("--server takes HOST:PORT, not '" + server + "'");
    options.servers.push_back(*endpoint);
  }
  if (options.servers.empty()) return Usage("give at least one --server");
  int seconds = 0, callers = 0, pause_ms = 0;
  try {
    seconds = std::stoi(flags->Get("--seconds", "10"));
    callers = std::stoi(flags->Get("--callers", "4"));
    pause_ms = std::stoi(flags->Get("--pause-ms", "0"));
  } catch (const std::exception&) {
    return Usage("--seconds, --callers and --pause-ms take whole numbers");
  }
  if (seconds < 0 || callers < 1 || callers > 256 || pause_ms < 0) {
    return Usage("--seconds and --pause-ms must be 0 or more, --callers 1 to 256");
  }

  // Room for every caller on each server, so one server's drain leaves each a connection.
  options.pool_size = std::max<size_t>(options.pool_size, 2 * static_cast<size_t>(callers));
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGINT, OnSignal);
  rpc::Client client(options);
  if (rpc::Status s = client.Start(); !s.ok()) {
    std::fprintf(stderr, "greeter_client: %s\n", s.ToString().c_str());
    return 1;
  }
  // A Boxcar call never waits for a connection: with none idle it fails at once
  // (POOL_EXHAUSTED). So the callers start once the pool has a connection for each of them.
  if (!client.WaitForPool(static_cast<size_t>(callers), std::chrono::seconds(10))) {
    std::fprintf(stderr, "greeter_client: not %d connections within 10 s: %s\n", callers,
                 client.Snapshot().last_connect_failure.c_str());
    return 1;
  }
  std::printf("greeter_client: calling %zu servers from %d callers\n", options.servers.size(),
              callers);
  std::fflush(stdout);

  greeter::Greeter::Stub stub(client);
  const Clock::time_point end =
      seconds == 0 ? Clock::time_point::max() : Clock::now() + std::chrono::seconds(seconds);
  Tally tally;
  std::vector<std::thread> threads;
  for (int i = 0; i < callers; ++i) {
    threads.emplace_back([&, i] {
      greeter::GreetRequest request;
      request.set_name("caller " + std::to_string(i));
      greeter::GreetReply reply;
      while (!g_stop.load() && Clock::now() < end) {
        const rpc::CallResult result = stub.Greet(request, &reply, std::chrono::seconds(2));
        if (result.status.ok()) {
          tally.Answered(reply.served_by());
        } else {
          tally.Failed(result.status);
        }
        if (pause_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  client.Stop();
  return tally.Print();
}
