// SPDX-License-Identifier: Apache-2.0
// Connections and each client's acquirer: connects, the pool in slot order, replacements.

#include "core/sim/engine.h"

#include <algorithm>

namespace railyard::sim::internal {

uint32_t Engine::NewConn() {
  uint32_t id = 0;
  if (free_conns_.empty()) {
    conns_.emplace_back();
    id = static_cast<uint32_t>(conns_.size() - 1);
  } else {
    id = free_conns_.back();
    free_conns_.pop_back();
    conns_[id] = Conn{};
  }
  if (options_.failed_answers_limit) {
    conns_[id].answers = balance::AnswerHealth(*options_.failed_answers_limit);
  }
  return id;
}

// Takes a connection out of its pool and releases its slot; its id is freed once no attempt
// uses it.
void Engine::CloseConn(uint32_t id) {
  Conn& k = conns_[id];
  if (k.in_pool) {
    RemoveFromPool(clients_[k.client], id);
    Wake(k.client);
  }
  if (k.open) {
    Backend& b = backends_[k.backend];
    b.used[k.slot / 64] &= ~(uint64_t{1} << (k.slot % 64));
    b.slot_conn[k.slot] = kNone;
    --b.open_conns;
    k.open = false;
  }
  k.retiring = false;
  if (k.request == kNone) free_conns_.push_back(id);
}

void Engine::RemoveFromPool(Client& c, uint32_t id) {
  auto it = std::find(c.pool.begin(), c.pool.end(), id);
  if (it != c.pool.end()) c.pool.erase(it);
  conns_[id].in_pool = false;
}

void Engine::InsertIntoPool(Client& c, uint32_t id) {
  auto it = std::upper_bound(c.pool.begin(), c.pool.end(), id, [&](uint32_t x, uint32_t y) {
    const Conn& a = conns_[x];
    const Conn& b = conns_[y];
    return a.slot != b.slot ? a.slot < b.slot : a.tie < b.tie;
  });
  c.pool.insert(it, id);
  conns_[id].in_pool = true;
}

void Engine::Sleep(uint32_t client, int64_t how_long) {
  Client& c = clients_[client];
  Schedule(now_ + how_long, kAcquire, client, ++c.sleep_gen);
}

// A pool lost a member: cut the acquirer's sleep short.
void Engine::Wake(uint32_t client) {
  Client& c = clients_[client];
  ++c.sleep_gen;
  MaybeConnect(client);
}

// Starts connects: up to kRefillParallelism while the pool is short, one when it is full.
void Engine::MaybeConnect(uint32_t client) {
  Client& c = clients_[client];
  while (true) {
    const bool short_of_capacity = c.pool.size() + c.connecting < c.group->pool;
    const uint32_t lanes = short_of_capacity ? kRefillParallelism : 1;
    if (c.connecting >= lanes) return;
    targets_.clear();
    for (BackendId b : c.subset) {
      if (c.avoid_until[b] <= now_) targets_.push_back(b);
    }
    if (targets_.empty()) {
      if (c.connecting == 0) Sleep(client, kSleepMax);
      return;
    }
    const uint32_t target = targets_[c.acquirer.Below(targets_.size())];
    ++c.connecting;
    Schedule(now_ + scenario_.connect_time.count() + rtt_, kConnectDone, client, target);
  }
}

void Engine::OnConnectDone(uint32_t client, uint32_t backend) {
  Client& c = clients_[client];
  Backend& b = backends_[backend];
  --c.connecting;
  if (b.down) {
    ++c.counters.connect_failures;
    ++totals_.connect_failures;
    // Back off from a dead backend, doubling up to about a second, as rpc::Client does.
    const int exponent = std::min<int>(c.connect_failures[backend]++, 6);
    c.avoid_until[backend] = now_ + (int64_t{16'000'000} << exponent);
    MaybeConnect(client);
    return;
  }
  if (b.lame) {
    c.avoid_until[backend] = now_ + kLameDuckAvoid;
    MaybeConnect(client);
    return;
  }
  c.connect_failures[backend] = 0;
  c.touched[backend] = 1;
  ++c.counters.connects;
  ++totals_.connects;
  const uint32_t id = NewConn();
  Conn& k = conns_[id];
  k.client = client;
  k.backend = backend;
  k.tie = c.tie[backend];
  k.open = true;
  k.slot = AllocateSlot(b, id);
  if (c.pool.size() < c.group->pool) {
    InsertIntoPool(c, id);
    MaybeConnect(client);
    return;
  }
  const uint32_t worst = c.pool.back();
  const Conn& w = conns_[worst];
  if (k.slot < w.slot || (k.slot == w.slot && k.tie < w.tie)) {
    ++c.counters.replacements;
    RemoveFromPool(c, worst);
    if (conns_[worst].request == kNone) {
      CloseConn(worst);
    } else {
      conns_[worst].retiring = true;
    }
    InsertIntoPool(c, id);
    MaybeConnect(client);
    return;
  }
  CloseConn(id);
  if (c.connecting == 0) {
    Sleep(client, kSleepMin + static_cast<int64_t>(c.acquirer.Below(kSleepMax - kSleepMin + 1)));
  }
}

}  // namespace railyard::sim::internal
