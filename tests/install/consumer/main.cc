// SPDX-License-Identifier: Apache-2.0
// A service owner's program, built only from the installed tree (tests/install/consumer.sh): a
// Boxcar server and client on 127.0.0.1 exchange one call, with the runtime's log lines sent to the
// program's own sink, then the docstore engine puts a document, reads it, closes, reopens and
// reads it again. Exits 0 only if all of that worked.
//   railyard_consumer STORE_DIRECTORY
#include <railyard/core/rpc/client.h>
#include <railyard/core/rpc/log_sink.h>
#include <railyard/core/rpc/server.h>
#include <railyard/storage/docstore.h>
#include <railyard/version.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

namespace rpc = railyard::rpc;
namespace storage = railyard::storage;

int Fail(const std::string& what) {
  std::fprintf(stderr, "FAIL: %s\n", what.c_str());
  return 1;
}

// The runtime's lines, as the program's sink received them.
std::mutex log_mutex;
std::vector<std::string> log_lines;

int ExchangeOneCall() {
  rpc::SetLogSink([](rpc::LogLevel level, std::string_view line) {
    std::lock_guard lock(log_mutex);
    log_lines.push_back(std::string(rpc::LogLevelName(level)) + ": " + std::string(line));
  });
  rpc::ServerOptions server_options;
  server_options.name = "consumer";
  server_options.io_threads = 1;
  server_options.worker_threads = 1;
  rpc::Server server(server_options);
  server.RegisterHandler("consumer.Echo", [](const rpc::CallContext&, std::string_view payload) {
    return rpc::Reply{rpc::Status::Ok(), "echo: " + std::string(payload)};
  });
  if (rpc::Status started = server.Start(); !started.ok()) {
    return Fail("server start: " + started.ToString());
  }

  rpc::ClientOptions client_options;
  client_options.servers = {server.endpoint()};
  rpc::Client client(client_options);
  if (rpc::Status started = client.Start(); !started.ok()) {
    return Fail("client start: " + started.ToString());
  }
  // The pool connects in the background; a call before its first connection is refused at once
  // (UNAVAILABLE, or POOL_EXHAUSTED). Bounded, generously for a loaded machine: 3000 tries, 30 s.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  rpc::CallResult result;
  for (int i = 0; i < 3000 && std::chrono::steady_clock::now() < give_up; ++i) {
    result = client.Call("consumer.Echo", "hello", std::chrono::seconds(2));
    const rpc::Code code = result.status.code();
    if (code != rpc::Code::kUnavailable && code != rpc::Code::kPoolExhausted) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!result.status.ok()) return Fail("call: " + result.status.ToString());
  if (result.payload != "echo: hello") return Fail("call answered '" + result.payload + "'");
  std::printf("rpc: one call answered '%s'\n", result.payload.c_str());
  client.Stop();
  server.Stop();
  rpc::SetLogSink({});
  std::lock_guard lock(log_mutex);
  bool listening = false;
  for (const std::string& line : log_lines) {
    std::printf("sink: %s\n", line.c_str());
    listening = listening || line.starts_with("info: server consumer listening on 127.0.0.1:");
  }
  if (!listening) return Fail("the log sink never saw the server's 'listening' line");
  return 0;
}

int PutGetReopen(const std::string& directory) {
  std::unique_ptr<storage::DocStore> store;
  if (storage::Status s = storage::DocStore::Open(storage::Options{}, directory, &store); !s.ok()) {
    return Fail("open: " + s.ToString());
  }
  if (storage::Status s = store->Put(42, "the answer"); !s.ok())
    return Fail("put: " + s.ToString());
  std::string doc;
  if (storage::Status s = store->Get(42, &doc); !s.ok() || doc != "the answer") {
    return Fail("get before reopening: " + s.ToString() + " '" + doc + "'");
  }
  if (storage::Status s = store->Close(); !s.ok()) return Fail("close: " + s.ToString());
  store.reset();

  if (storage::Status s = storage::DocStore::Open(storage::Options{}, directory, &store); !s.ok()) {
    return Fail("reopen: " + s.ToString());
  }
  doc.clear();
  if (storage::Status s = store->Get(42, &doc); !s.ok() || doc != "the answer") {
    return Fail("get after reopening: " + s.ToString() + " '" + doc + "'");
  }
  if (storage::Status s = store->Close(); !s.ok()) return Fail("close: " + s.ToString());
  std::printf("storage: put, get, close, reopen, get '%s'\n", doc.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return Fail("usage: railyard_consumer STORE_DIRECTORY");
  std::printf("Railyard %s (%d.%d.%d)\n", RAILYARD_VERSION_STRING, RAILYARD_VERSION_MAJOR,
              RAILYARD_VERSION_MINOR, RAILYARD_VERSION_PATCH);
  if (int failed = ExchangeOneCall()) return failed;
  return PutGetReopen(argv[1]);
}
