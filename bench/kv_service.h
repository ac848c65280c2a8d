// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/closed_loop.h"

namespace railyard::bench {

// Failed calls a service's client logs before it goes quiet (the first few say what went wrong).
inline constexpr int kServiceFailuresToLog = 5;

// The value service_bench stores under `key`: `size` bytes that depend on the key, so a read can
// tell its document from another's.
std::string ValueFor(uint64_t key, size_t size);
// Whether `value` is what ValueFor(key, size) wrote.
bool IsValueFor(uint64_t key, size_t size, const char* value, size_t length);

// The servers a point's calls go to, on 127.0.0.1: the primary alone for writes; for reads, the
// primary and its replicas, which the client balances over.
struct ServiceAddress {
  std::vector<uint16_t> ports;
};

// One service's client in service_bench, driven by a ClosedLoop: the Boxcar docservice client, a
// Redis client (hiredis) or a memcached client (libmemcached). Each runs its I/O the way its users
// would (asynchronous on a few threads where the library allows it).
//
// Thread safety: Connect, Disconnect and Describe from one thread; Get and Put from any thread,
// concurrently for distinct callers, never twice at once for the same caller.
class KvService {
 public:
  virtual ~KvService() = default;

  // Connects for `concurrency` callers; an error message, or "" once every connection is up.
  virtual std::string Connect(const ServiceAddress& address, size_t concurrency) = 0;
  // Starts a read of `key` for `caller`, then loop.Done(caller, ok) exactly once: ok means the
  // document came back whole (IsValueFor).
  virtual void Get(size_t caller, uint64_t key) = 0;
  // Starts a write of ValueFor(key, value_size), then loop.Done(caller, ok) exactly once: ok means
  // acknowledged.
  virtual void Put(size_t caller, uint64_t key) = 0;
  // Closes every connection; calls still in flight end first.
  virtual void Disconnect() = 0;
  virtual std::string Describe() const = 0;
};

// `loop` must outlive the service; `client_threads`: the client's I/O threads.
std::unique_ptr<KvService> MakeBoxcarDocService(ClosedLoop& loop, size_t value_size,
                                                size_t client_threads);
std::unique_ptr<KvService> MakeRedisService(ClosedLoop& loop, size_t value_size,
                                            size_t client_threads);
// libmemcached has no asynchronous reads: each caller has a thread and a connection of its own.
std::unique_ptr<KvService> MakeMemcachedService(ClosedLoop& loop, size_t value_size);

}  // namespace railyard::bench
