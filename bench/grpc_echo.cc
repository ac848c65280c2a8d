// SPDX-License-Identifier: Apache-2.0
// The gRPC side of rpc_bench: an EchoService on gRPC's callback API, called through one channel
// with the callback stub.
//
// Threads: the callback API has no thread-count setting. In gRPC 1.51 on Linux, callbacks, client
// and server alike, are run by the "nexting" threads that poll gRPC's process-wide callback
// completion queue, clamp(cores / 2, 2, 16) of them (2 on a 2-core machine), helped by its own
// executor, event-engine, timer and resolver threads: about a dozen threads in all on 2 cores.
// Railyard gets one server I/O thread per core and one client I/O thread. rpc_bench prints the
// process's thread count for each run on stderr.
#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <optional>
#include <thread>

#include "bench/echo_system.h"
#include "echo.grpc.pb.h"

namespace railyard::bench {
namespace {

using SystemClock = std::chrono::system_clock;

class EchoServiceImpl final : public EchoService::CallbackService {
  grpc::ServerUnaryReactor* Echo(grpc::CallbackServerContext* context, const EchoMessage* request,
                                 EchoMessage* reply) override {
    reply->set_payload(request->payload());
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
};

class GrpcEcho final : public EchoSystem {
 public:
  GrpcEcho(ClosedLoop& loop, std::string payload) : loop_(loop), payload_(std::move(payload)) {}
  ~GrpcEcho() override { Stop(); }

  rpc::Status Start(size_t concurrency) override {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    if (!server_ || port == 0) {
      return {rpc::Code::kUnavailable, "the gRPC server did not start on 127.0.0.1"};
    }
    const std::string target = "127.0.0.1:" + std::to_string(port);
    channel_ = grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
    if (!channel_->WaitForConnected(SystemClock::now() + std::chrono::seconds(10))) {
      return {rpc::Code::kUnavailable,
              "the gRPC channel to " + target + " did not connect in 10 s"};
    }
    stub_ = EchoService::NewStub(channel_);
    calls_ = std::make_unique<Call[]>(concurrency);
    for (size_t i = 0; i < concurrency; ++i) calls_[i].request.set_payload(payload_);
    return rpc::Status::Ok();
  }

  void Echo(size_t caller) override {
    Call& call = calls_[caller];
    // A ClientContext serves one call; the previous call's context may go once its callback ran.
    call.context.emplace();
    call.context->set_deadline(SystemClock::now() + kCallTimeout);
    call.reply.Clear();
    in_flight_.fetch_add(1, std::memory_order_relaxed);
    stub_->async()->Echo(&*call.context, &call.request, &call.reply,
                         [this, caller](grpc::Status status) {
                           const Call& done = calls_[caller];
                           const bool ok = status.ok() && done.reply.payload() == payload_;
                           if (!ok) LogFailure(status, done.reply);
                           loop_.Done(caller, ok);
                           in_flight_.fetch_sub(1, std::memory_order_release);
                         });
  }

  void Stop() override {
    if (!server_) return;
    // Cancels whatever the server still holds, so the client's calls end quickly; callbacks refer
    // to this object, so wait (bounded by the call deadline) until none is left.
    server_->Shutdown(SystemClock::now());
    const auto give_up = std::chrono::steady_clock::now() + kCallTimeout + std::chrono::seconds(1);
    while (in_flight_.load(std::memory_order_acquire) > 0 &&
           std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (const int64_t left = in_flight_.load(); left > 0) {
      spdlog::error("grpc: {} calls still in flight after stopping", left);
    }
    stub_.reset();
    channel_.reset();
    server_->Wait();
    server_.reset();
  }

  std::string Describe() const override {
    return "server: callback service; client: one channel (one HTTP/2 connection), callback stub; "
           "threads managed by gRPC";
  }

 private:
  struct Call {
    std::optional<grpc::ClientContext> context;
    EchoMessage request;
    EchoMessage reply;
  };

  void LogFailure(const grpc::Status& status, const EchoMessage& reply) {
    if (failures_logged_.fetch_add(1, std::memory_order_relaxed) >= kEchoFailuresToLog) return;
    if (!status.ok()) {
      spdlog::warn("grpc: call failed: code {}: {}", static_cast<int>(status.error_code()),
                   status.error_message());
    } else {
      spdlog::warn("grpc: echo came back altered ({} bytes, {} sent)", reply.payload().size(),
                   payload_.size());
    }
  }

  ClosedLoop& loop_;
  const std::string payload_;
  EchoServiceImpl service_;
  std::unique_ptr<grpc::Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<EchoService::Stub> stub_;
  std::unique_ptr<Call[]> calls_;
  std::atomic<int64_t> in_flight_{0};
  std::atomic<int> failures_logged_{0};
};

}  // namespace

std::unique_ptr<EchoSystem> MakeGrpcEcho(ClosedLoop& loop, std::string payload) {
  return std::make_unique<GrpcEcho>(loop, std::move(payload));
}

}  // namespace railyard::bench
