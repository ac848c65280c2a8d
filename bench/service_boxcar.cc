// SPDX-License-Identifier: Apache-2.0
// service_bench's Boxcar client of railyard-node's docservice: the generated stub over one
// rpc::Client whose pool holds a connection per caller, as a service owner would set it up.
#include <atomic>
#include <cstdio>
#include <optional>
#include <string>

#include "bench/kv_service.h"
#include "core/rpc/client.h"
#include "railyard/docservice.boxcar.h"

namespace railyard::bench {
namespace {

constexpr std::chrono::milliseconds kCallTimeout{5000};

class BoxcarDocService final : public KvService {
 public:
  BoxcarDocService(ClosedLoop& loop, size_t value_size, size_t client_threads)
      : loop_(loop), value_size_(value_size), client_threads_(client_threads) {}
  ~BoxcarDocService() override { Disconnect(); }

  std::string Connect(const ServiceAddress& address, size_t concurrency) override {
    rpc::ClientOptions options;
    for (uint16_t port : address.ports) options.servers.push_back({"127.0.0.1", port});
    options.pool_size = concurrency;
    options.io_threads = client_threads_;
    options.client_name = "service_bench";
    options.default_timeout = kCallTimeout;
    client_.emplace(options);
    if (rpc::Status s = client_->Start(); !s.ok()) return "boxcar client: " + s.ToString();
    stub_.emplace(*client_);
    if (!client_->WaitForPool(concurrency, std::chrono::seconds(10))) {
      return "boxcar: the pool did not hold " + std::to_string(concurrency) +
             " connections within 10 s";
    }
    return "";
  }

  void Get(size_t caller, uint64_t key) override {
    doc::GetRequest request;
    request.set_id(key);
    stub_->AsyncGet(
        request, [this, caller, key](rpc::CallResult&& result, doc::GetResponse&& response) {
          bool ok = result.status.ok();
          if (ok && !IsValueFor(key, value_size_, response.doc().data(), response.doc().size())) {
            ok = false;
            result.status = rpc::Status(rpc::Code::kInternal, "wrong document");
          }
          Finish(caller, ok, result.status);
        });
  }

  void Put(size_t caller, uint64_t key) override {
    doc::PutRequest request;
    request.set_id(key);
    request.set_doc(ValueFor(key, value_size_));
    stub_->AsyncPut(request, [this, caller](rpc::CallResult&& result, doc::PutResponse&&) {
      Finish(caller, result.status.ok(), result.status);
    });
  }

  void Disconnect() override {
    stub_.reset();
    if (client_) client_->Stop();
    client_.reset();
  }

  std::string Describe() const override {
    return "boxcar: generated DocService stub, " + std::to_string(client_threads_) +
           " client I/O thread(s), a pooled connection per caller";
  }

 private:
  void Finish(size_t caller, bool ok, const rpc::Status& status) {
    if (!ok && failures_logged_.fetch_add(1) < kServiceFailuresToLog) {
      std::fprintf(stderr, "boxcar: call failed: %s\n", status.ToString().c_str());
    }
    loop_.Done(caller, ok);
  }

  ClosedLoop& loop_;
  const size_t value_size_;
  const size_t client_threads_;
  std::optional<rpc::Client> client_;
  std::optional<doc::DocService::Stub> stub_;
  std::atomic<int> failures_logged_{0};
};

}  // namespace

std::unique_ptr<KvService> MakeBoxcarDocService(ClosedLoop& loop, size_t value_size,
                                                size_t client_threads) {
  return std::make_unique<BoxcarDocService>(loop, value_size, client_threads);
}

}  // namespace railyard::bench
