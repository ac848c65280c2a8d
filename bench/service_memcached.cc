// SPDX-License-Identifier: Apache-2.0
// service_bench's memcached client: libmemcached, which reads only blocking, so each caller has a
// thread and a connection of its own (TCP_NODELAY, the text protocol).
#include <libmemcached/memcached.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <semaphore>
#include <string>
#include <thread>
#include <vector>

#include "bench/kv_service.h"

namespace railyard::bench {
namespace {

class MemcachedService final : public KvService {
 public:
  MemcachedService(ClosedLoop& loop, size_t value_size) : loop_(loop), value_size_(value_size) {}
  ~MemcachedService() override { Disconnect(); }

  std::string Connect(const ServiceAddress& address, size_t concurrency) override {
    for (size_t i = 0; i < concurrency; ++i) {
      auto caller = std::make_unique<Caller>();
      caller->memc = memcached_create(nullptr);
      if (caller->memc == nullptr) return "memcached: out of memory";
      memcached_behavior_set(caller->memc, MEMCACHED_BEHAVIOR_TCP_NODELAY, 1);
      const uint16_t port = address.ports[i % address.ports.size()];
      if (memcached_return_t rc = memcached_server_add(caller->memc, "127.0.0.1", port);
          rc != MEMCACHED_SUCCESS) {
        return std::string("memcached: ") + memcached_strerror(caller->memc, rc);
      }
      // A first request connects, so the measured window does not.
      memcached_return_t rc;
      if (rc = memcached_version(caller->memc); rc != MEMCACHED_SUCCESS) {
        return std::string("memcached: ") + memcached_strerror(caller->memc, rc);
      }
      Caller* raw = caller.get();
      raw->thread = std::thread([this, raw, i] { Serve(*raw, i); });
      callers_.push_back(std::move(caller));
    }
    return "";
  }

  void Get(size_t caller, uint64_t key) override { Hand(caller, key, false); }
  void Put(size_t caller, uint64_t key) override { Hand(caller, key, true); }

  void Disconnect() override {
    for (auto& caller : callers_) {
      caller->stop = true;
      caller->work.release();
    }
    for (auto& caller : callers_) {
      if (caller->thread.joinable()) caller->thread.join();
      memcached_free(caller->memc);
    }
    callers_.clear();
  }

  std::string Describe() const override {
    return "memcached: libmemcached (blocking), a thread and a connection per caller";
  }

 private:
  struct Caller {
    memcached_st* memc = nullptr;
    std::thread thread;
    std::binary_semaphore work{0};
    bool stop = false;  // Set before `work` is released for the last time.
    uint64_t key = 0;
    bool write = false;
  };

  void Hand(size_t caller, uint64_t key, bool write) {
    Caller& c = *callers_[caller];
    c.key = key;
    c.write = write;
    c.work.release();
  }

  void Serve(Caller& c, size_t index) {
    while (true) {
      c.work.acquire();
      if (c.stop) return;
      char key[32];
      const int length =
          std::snprintf(key, sizeof key, "k:%llu", static_cast<unsigned long long>(c.key));
      memcached_return_t rc;
      bool ok;
      if (c.write) {
        const std::string value = ValueFor(c.key, value_size_);
        rc = memcached_set(c.memc, key, size_t(length), value.data(), value.size(), 0, 0);
        ok = rc == MEMCACHED_SUCCESS;
      } else {
        size_t value_length = 0;
        uint32_t flags = 0;
        char* value = memcached_get(c.memc, key, size_t(length), &value_length, &flags, &rc);
        ok = rc == MEMCACHED_SUCCESS && value != nullptr &&
             IsValueFor(c.key, value_size_, value, value_length);
        std::free(value);
      }
      if (!ok && failures_logged_.fetch_add(1) < kServiceFailuresToLog) {
        std::fprintf(
            stderr, "memcached: %s failed: %s\n", c.write ? "set" : "get",
            rc == MEMCACHED_SUCCESS ? "a missing or wrong value" : memcached_strerror(c.memc, rc));
      }
      loop_.Done(index, ok);  // May hand this thread its next request at once.
    }
  }

  ClosedLoop& loop_;
  const size_t value_size_;
  std::vector<std::unique_ptr<Caller>> callers_;
  std::atomic<int> failures_logged_{0};
};

}  // namespace

std::unique_ptr<KvService> MakeMemcachedService(ClosedLoop& loop, size_t value_size) {
  return std::make_unique<MemcachedService>(loop, value_size);
}

}  // namespace railyard::bench
