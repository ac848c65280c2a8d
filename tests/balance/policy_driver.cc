// SPDX-License-Identifier: Apache-2.0
#include "tests/balance/policy_driver.h"

#include <algorithm>
#include <functional>

namespace railyard::balance::testing {

double Counts::Share(BackendId backend) const {
  auto it = picks.find(backend);
  return total == 0 || it == picks.end()
             ? 0.0
             : static_cast<double>(it->second) / static_cast<double>(total);
}

PolicyDriver::PolicyDriver(Policy& policy, uint32_t backends, uint32_t callers, uint64_t seed)
    : policy_(policy), callers_(callers), rng_(seed) {
  for (BackendId id = 0; id < backends; ++id) candidates_.push_back({id, id, 1});
  for (uint32_t caller = 0; caller < callers_; ++caller) {
    queue_.push_back({now_, caller, std::nullopt});
  }
  std::make_heap(queue_.begin(), queue_.end(), std::greater<>());
}

void PolicyDriver::PickFor(uint32_t caller, const Behaviour& behaviour, Counts& counts) {
  const std::optional<size_t> index = policy_.Pick(candidates_, {}, now_);
  if (!index) {
    ++counts.refused;
    queue_.push_back({now_ + std::chrono::milliseconds(1), caller, std::nullopt});
  } else {
    const BackendId backend = candidates_[*index].backend;
    ++counts.picks[backend];
    ++counts.total;
    const Answer answer = behaviour(backend, now_, rng_);
    const Time done = now_ + answer.latency;
    queue_.push_back(
        {done, caller, Outcome{backend, answer.result, answer.latency, answer.load, done}});
  }
  std::push_heap(queue_.begin(), queue_.end(), std::greater<>());
}

Counts PolicyDriver::Run(Duration duration, const Behaviour& behaviour) {
  Counts counts;
  const Time end = now_ + duration;
  // Bounded even if a behaviour answers in zero time: no test needs anywhere near this many.
  constexpr uint64_t kMaxEvents = 20'000'000;
  for (uint64_t events = 0; events < kMaxEvents && !queue_.empty() && queue_.front().done <= end;
       ++events) {
    std::pop_heap(queue_.begin(), queue_.end(), std::greater<>());
    Pending next = queue_.back();
    queue_.pop_back();
    now_ = next.done;
    if (next.outcome) policy_.Finish(*next.outcome);
    PickFor(next.caller, behaviour, counts);
  }
  now_ = end;
  return counts;
}

}  // namespace railyard::balance::testing
