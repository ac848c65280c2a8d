// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "core/balance/policy.h"
#include "core/base/random.h"

namespace railyard::balance::testing {

// How a backend answers one attempt in a driven run: result, latency, and load report.
struct Answer {
  Result result = Result::kSuccess;
  Duration latency{0};
  std::optional<LoadReport> load;
};
using Behaviour = std::function<Answer(BackendId backend, Time now, base::Rng& rng)>;

// Picks per backend over a stretch of a run.
struct Counts {
  std::map<BackendId, uint64_t> picks;
  uint64_t total = 0;
  uint64_t refused = 0;  // Picks that failed fast.
  double Share(BackendId backend) const;
};

// Drives a policy in virtual time, as a client with `callers` closed-loop callers would: each
// caller picks among all `backends` (every one always has an idle connection), the behaviour
// decides when and how the attempt ends, Finish reports it, and the caller picks again at once
// (1 ms later after a fail-fast). Everything is deterministic for the seed.
class PolicyDriver {
 public:
  PolicyDriver(Policy& policy, uint32_t backends, uint32_t callers, uint64_t seed = 7);

  // Runs until `now() + duration`, counting picks made in that stretch.
  Counts Run(Duration duration, const Behaviour& behaviour);
  Time now() const { return now_; }

 private:
  struct Pending {
    Time done;
    uint32_t caller;
    std::optional<Outcome> outcome;  // Empty: the caller waits to pick again.
    bool operator>(const Pending& other) const { return done > other.done; }
  };
  void PickFor(uint32_t caller, const Behaviour& behaviour, Counts& counts);

  Policy& policy_;
  std::vector<Candidate> candidates_;
  uint32_t callers_;
  base::Rng rng_;
  Time now_{0};
  std::vector<Pending> queue_;  // A heap, earliest first.
};

}  // namespace railyard::balance::testing
