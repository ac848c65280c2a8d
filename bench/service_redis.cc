// SPDX-License-Identifier: Apache-2.0
// service_bench's Redis client: hiredis's asynchronous API on asio, a connection per caller (as
// redis-benchmark -c opens), connections dealt out over the client's I/O threads. hiredis has no
// asio adapter; the one here is the shape of its libev one (read and write interest switched on
// and off by hiredis, each turned into an async_wait on the connection's socket).
#include <hiredis/async.h>
#include <hiredis/hiredis.h>

#include <asio.hpp>
#include <atomic>
#include <cstdio>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "bench/kv_service.h"

namespace railyard::bench {
namespace {

class RedisService;

// One caller's connection. Used only on its io_context's thread once connected; kept until the
// service is destroyed, since a wait handler may still name it after hiredis let go.
struct RedisConnection {
  RedisService* service = nullptr;
  asio::io_context* io = nullptr;
  size_t caller = 0;
  redisAsyncContext* context = nullptr;
  std::unique_ptr<asio::posix::stream_descriptor> socket;
  bool want_read = false, want_write = false;
  bool read_armed = false, write_armed = false;
  bool closed = false;  // hiredis freed the context.
  std::promise<std::string> connected;
  uint64_t key = 0;  // The request in flight.
  char key_text[32] = {};
  size_t key_length = 0;
};

void ArmRead(RedisConnection* c);
void ArmWrite(RedisConnection* c);

void ArmRead(RedisConnection* c) {
  if (c->read_armed || c->closed || !c->want_read) return;
  c->read_armed = true;
  c->socket->async_wait(asio::posix::stream_descriptor::wait_read, [c](std::error_code error) {
    c->read_armed = false;
    if (error || c->closed || !c->want_read) return;
    redisAsyncHandleRead(c->context);
    ArmRead(c);
  });
}

void ArmWrite(RedisConnection* c) {
  if (c->write_armed || c->closed || !c->want_write) return;
  c->write_armed = true;
  c->socket->async_wait(asio::posix::stream_descriptor::wait_write, [c](std::error_code error) {
    c->write_armed = false;
    if (error || c->closed || !c->want_write) return;
    redisAsyncHandleWrite(c->context);
    ArmWrite(c);
  });
}

void AddRead(void* data) {
  auto* c = static_cast<RedisConnection*>(data);
  c->want_read = true;
  ArmRead(c);
}
void DelRead(void* data) { static_cast<RedisConnection*>(data)->want_read = false; }
void AddWrite(void* data) {
  auto* c = static_cast<RedisConnection*>(data);
  c->want_write = true;
  ArmWrite(c);
}
void DelWrite(void* data) { static_cast<RedisConnection*>(data)->want_write = false; }
void Cleanup(void* data) {
  auto* c = static_cast<RedisConnection*>(data);
  c->closed = true;
  c->want_read = c->want_write = false;
  std::error_code ignored;
  c->socket->cancel(ignored);
  c->socket->release();  // hiredis closes the descriptor itself.
}

void OnConnect(const redisAsyncContext* context, int status) {
  auto* c = static_cast<RedisConnection*>(context->ev.data);
  c->connected.set_value(status == REDIS_OK ? "" : std::string("redis: ") + context->errstr);
}

class RedisService final : public KvService {
 public:
  RedisService(ClosedLoop& loop, size_t value_size, size_t client_threads)
      : loop_(loop), value_size_(value_size), ios_(std::max<size_t>(client_threads, 1)) {}
  ~RedisService() override { Disconnect(); }

  std::string Connect(const ServiceAddress& address, size_t concurrency) override {
    for (asio::io_context& io : ios_) {
      guards_.emplace_back(asio::make_work_guard(io));
      threads_.emplace_back([&io] { io.run(); });
    }
    std::vector<std::future<std::string>> connected;
    for (size_t caller = 0; caller < concurrency; ++caller) {
      auto c = std::make_unique<RedisConnection>();
      c->service = this;
      c->io = &ios_[caller % ios_.size()];
      c->caller = caller;
      connected.push_back(c->connected.get_future());
      // Callers dealt out over the servers in turn.
      const uint16_t port = address.ports[caller % address.ports.size()];
      RedisConnection* raw = c.get();
      connections_.push_back(std::move(c));
      asio::post(*raw->io, [raw, port] { Open(raw, port); });
    }
    for (std::future<std::string>& f : connected) {
      if (f.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
        return "redis: a connection took more than 10 s";
      }
      if (std::string error = f.get(); !error.empty()) return error;
    }
    return "";
  }

  void Get(size_t caller, uint64_t key) override { Send(caller, key, false); }
  void Put(size_t caller, uint64_t key) override { Send(caller, key, true); }

  void Disconnect() override {
    for (auto& c : connections_) {
      RedisConnection* raw = c.get();
      asio::post(*raw->io, [raw] {
        if (!raw->closed && raw->context) redisAsyncDisconnect(raw->context);
      });
    }
    guards_.clear();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
    connections_.clear();  // hiredis freed each context on its disconnect (Cleanup).
  }

  std::string Describe() const override {
    return "redis: hiredis async on asio, " + std::to_string(ios_.size()) +
           " client I/O thread(s), a connection per caller";
  }

  void OnReply(RedisConnection* c, redisReply* reply, bool write) {
    bool ok = false;
    if (reply == nullptr) {
      Log("no reply (connection lost)");
    } else if (write) {
      ok = reply->type == REDIS_REPLY_STATUS;
      if (!ok) Log(reply->type == REDIS_REPLY_ERROR ? reply->str : "SET: unexpected reply");
    } else {
      ok = reply->type == REDIS_REPLY_STRING &&
           IsValueFor(c->key, value_size_, reply->str, size_t(reply->len));
      if (!ok) Log("GET: a missing or wrong value");
    }
    loop_.Done(c->caller, ok);
  }

 private:
  static void Open(RedisConnection* c, uint16_t port) {
    c->context = redisAsyncConnect("127.0.0.1", port);
    if (c->context == nullptr || c->context->err) {
      c->connected.set_value(std::string("redis: connect: ") +
                             (c->context ? c->context->errstr : "out of memory"));
      if (c->context) redisAsyncFree(c->context);  // Never attached: nothing else frees it.
      c->context = nullptr;
      c->closed = true;
      return;
    }
    c->socket = std::make_unique<asio::posix::stream_descriptor>(*c->io, c->context->c.fd);
    c->context->ev.data = c;
    c->context->ev.addRead = AddRead;
    c->context->ev.delRead = DelRead;
    c->context->ev.addWrite = AddWrite;
    c->context->ev.delWrite = DelWrite;
    c->context->ev.cleanup = Cleanup;
    redisAsyncSetConnectCallback(c->context, OnConnect);
  }

  void Send(size_t caller, uint64_t key, bool write) {
    RedisConnection* c = connections_[caller].get();
    asio::dispatch(*c->io, [this, c, key, write] {
      c->key = key;
      c->key_length = size_t(std::snprintf(c->key_text, sizeof c->key_text, "k:%llu",
                                           static_cast<unsigned long long>(key)));
      auto* done = write ? &RedisService::OnSetReply : &RedisService::OnGetReply;
      int status;
      if (write) {
        const std::string value = ValueFor(key, value_size_);
        status = redisAsyncCommand(c->context, done, c, "SET %b %b", c->key_text, c->key_length,
                                   value.data(), value.size());
      } else {
        status = redisAsyncCommand(c->context, done, c, "GET %b", c->key_text, c->key_length);
      }
      if (status != REDIS_OK) {
        Log("a command was refused (connection closed)");
        loop_.Done(c->caller, false);
      }
    });
  }

  static void OnGetReply(redisAsyncContext*, void* reply, void* data) {
    auto* c = static_cast<RedisConnection*>(data);
    c->service->OnReply(c, static_cast<redisReply*>(reply), false);
  }
  static void OnSetReply(redisAsyncContext*, void* reply, void* data) {
    auto* c = static_cast<RedisConnection*>(data);
    c->service->OnReply(c, static_cast<redisReply*>(reply), true);
  }

  void Log(const char* what) {
    if (failures_logged_.fetch_add(1) < kServiceFailuresToLog)
      std::fprintf(stderr, "redis: %s\n", what);
  }

  ClosedLoop& loop_;
  const size_t value_size_;
  std::vector<asio::io_context> ios_;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards_;
  std::vector<std::thread> threads_;
  std::vector<std::unique_ptr<RedisConnection>> connections_;
  std::atomic<int> failures_logged_{0};
};

}  // namespace

std::unique_ptr<KvService> MakeRedisService(ClosedLoop& loop, size_t value_size,
                                            size_t client_threads) {
  return std::make_unique<RedisService>(loop, value_size, client_threads);
}

}  // namespace railyard::bench
