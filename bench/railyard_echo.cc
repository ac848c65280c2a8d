// SPDX-License-Identifier: Apache-2.0
// The Boxcar side of rpc_bench: rpc::Server with an inline echo handler and one rpc::Client.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>

#include "bench/echo_system.h"
#include "core/base/usable_cores.h"
#include "core/rpc/client.h"
#include "core/rpc/server.h"

namespace railyard::bench {
namespace {

constexpr char kMethod[] = "bench.Echo";
constexpr size_t kMinPoolSize = 32;

class RailyardEcho final : public EchoSystem {
 public:
  RailyardEcho(ClosedLoop& loop, std::string payload, RailyardSelection selection,
               size_t client_threads, rpc::IoEngine io_engine)
      : loop_(loop),
        payload_(std::move(payload)),
        selection_(selection),
        client_threads_(std::max<size_t>(1, client_threads)),
        io_engine_(io_engine) {}
  ~RailyardEcho() override { Stop(); }

  rpc::Status Start(size_t concurrency) override {
    rpc::ServerOptions server_options;
    server_options.name = "rpc-bench";
    // The library's default, set here so that the run's description can say how many.
    server_options.io_threads = base::UsableCores();
    // The echo handler runs inline, so the worker pool stays idle; 0 would mean 16 threads, and
    // the pool cannot be switched off, so keep it to one.
    server_options.worker_threads = 1;
    server_options.io_engine = io_engine_;
    server_ = std::make_unique<rpc::Server>(server_options);
    server_->RegisterHandler(
        kMethod,
        [](const rpc::CallContext&, std::string_view payload) {
          return rpc::Reply{rpc::Status::Ok(), std::string(payload)};
        },
        rpc::Dispatch::kInline);
    if (rpc::Status status = server_->Start(); !status.ok()) return status;
    server_threads_ = server_options.io_threads;
    engine_ = server_->io_engine();

    rpc::ClientOptions client_options;
    client_options.servers = {server_->endpoint()};
    client_options.pool_size = std::max(concurrency, kMinPoolSize);
    client_options.io_threads = client_threads_;
    client_options.client_name = "rpc-bench";
    client_options.io_engine = io_engine_;
    client_options.default_timeout = kCallTimeout;
    if (selection_ == RailyardSelection::kFastPath) {
      client_options.policy = rpc::LowestSlotFastPathPolicy();
    }
    client_ = std::make_unique<rpc::Client>(client_options);
    if (rpc::Status status = client_->Start(); !status.ok()) return status;
    pool_size_ = client_options.pool_size;
    if (!client_->WaitForPool(pool_size_, std::chrono::seconds(10))) {
      return {rpc::Code::kUnavailable, "the client pool did not fill to " +
                                           std::to_string(pool_size_) + " connections in 10 s"};
    }
    return rpc::Status::Ok();
  }

  void Echo(size_t caller) override {
    client_->AsyncCall(
        kMethod, payload_,
        [this, caller](rpc::CallResult&& result) {
          const bool ok = result.status.ok() && result.payload == payload_;
          if (!ok) LogFailure(result);
          loop_.Done(caller, ok);
        },
        kCallTimeout);
  }

  void Stop() override {
    // The client first: its Stop ends every call in flight and joins its threads, so no callback
    // runs afterwards.
    if (client_) client_->Stop();
    if (server_) server_->Stop();
  }

  std::string Describe() const override {
    return "server: " + std::to_string(server_threads_) + " I/O threads on " +
           std::string(rpc::IoEngineName(engine_)) +
           ", inline echo handler; client: " + std::to_string(client_threads_) +
           " I/O thread(s), pool of " + std::to_string(pool_size_) + " connections, " +
           (selection_ == RailyardSelection::kFastPath ? "stateless lowest-slot fast path"
                                                       : "default policy (lowest slot, balance)");
  }

 private:
  void LogFailure(const rpc::CallResult& result) {
    if (failures_logged_.fetch_add(1, std::memory_order_relaxed) >= kEchoFailuresToLog) return;
    if (!result.status.ok()) {
      spdlog::warn("railyard: call failed after {} attempt(s): {}", result.attempts,
                   result.status.ToString());
    } else {
      spdlog::warn("railyard: echo came back altered ({} bytes, {} sent)", result.payload.size(),
                   payload_.size());
    }
  }

  ClosedLoop& loop_;
  const std::string payload_;
  const RailyardSelection selection_;
  const size_t client_threads_;
  const rpc::IoEngine io_engine_;
  rpc::IoEngine engine_ = rpc::IoEngine::kEpoll;  // What the server runs on.
  std::unique_ptr<rpc::Server> server_;
  std::unique_ptr<rpc::Client> client_;
  size_t server_threads_ = 0;
  size_t pool_size_ = 0;
  std::atomic<int> failures_logged_{0};
};

}  // namespace

std::unique_ptr<EchoSystem> MakeRailyardEcho(ClosedLoop& loop, std::string payload,
                                             RailyardSelection selection, size_t client_threads,
                                             rpc::IoEngine io_engine) {
  return std::make_unique<RailyardEcho>(loop, std::move(payload), selection, client_threads,
                                        io_engine);
}

}  // namespace railyard::bench
