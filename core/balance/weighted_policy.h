// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/balance/active_counts.h"
#include "core/balance/policy.h"

namespace railyard::balance {

// Weighted round robin from load reports (the SRE chapter): every response carries its backend's
// utilization, requests/s and errors/s; a backend's weight is its capacity for successful
// requests, (requests/s - error_penalty * errors/s) / utilization, so traffic moves until
// utilizations even out and a backend that answers fast with errors loses its share. A report
// older than `report_ttl` no longer counts, and a backend without a live report gets the mean
// weight of the others; no live backend falls below `weight_floor` x the mean. The order is
// nginx's smooth weighted round robin over the candidates, which interleaves instead of bursting.
class WeightedPolicy final : public Policy {
 public:
  explicit WeightedPolicy(const PolicyOptions& options);

  std::string_view name() const override { return "weighted"; }
  std::optional<size_t> Pick(std::span<const Candidate> candidates,
                             std::span<const BackendId> avoid, Time now) override;
  void Finish(const Outcome& outcome) override;
  Explanation Explain(Time now) const override;

 private:
  struct State {
    std::optional<LoadReport> report;
    Time reported{0};
    double current = 0;  // Smooth WRR's running credit.
  };
  struct Weighing {
    double weight = 0;
    std::string note;
  };

  // The weight of `backend` given the mean weight of the backends with live reports.
  std::optional<double> ReportedWeight(BackendId backend, Time now) const;
  // Weights (and why) for `backends`, with the mean and the floor applied.
  std::vector<Weighing> Weigh(std::span<const BackendId> backends, Time now) const;

  PolicyOptions options_;
  ActiveCounts active_;
  std::map<BackendId, State> states_;
  std::vector<size_t> eligible_;
  std::vector<BackendId> backends_;
};

}  // namespace railyard::balance
