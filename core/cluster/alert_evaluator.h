// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "railyard/admin.pb.h"
#include "railyard/alerts.pb.h"

namespace railyard::cluster {

// What one node looks like to the alert rules at one moment.
struct AlertObservation {
  int64_t unix_ms = 0;
  // Whether it answers now (its latest telemetry is fresh); false for a node that stopped
  // answering or never has. Nullopt: not known (the console's token was refused).
  std::optional<bool> answering;
  // Its latest telemetry while it answers; null otherwise.
  const admin::Telemetry* telemetry = nullptr;
};

// DISK_FREE_SHARE (docs/figures.md): the share of the data directory's file system that is free;
// nullopt where its size is not known.
std::optional<double> DiskFreeShare(const admin::DiskSpace& disk);

// A rule's figure for one node now (docs/figures.md, "Alerts"): the value compared with its
// threshold, or for a figure without one 1 (holds) or 0; nullopt where it is not known (the node
// does not answer, or it is not that kind of node), which holds no alert.
// `corruptions_15m`: the node's corruptions seen in the last 15 minutes (AlertEvaluator keeps it).
std::optional<double> AlertFigure(alerts::Figure figure, const AlertObservation& node,
                                  double corruptions_15m = 0);
// Whether that value breaks the rule.
bool Breaks(const alerts::Rule& rule, double value);

enum class AlertPhase { kPending, kFiring, kResolved };
const char* AlertPhaseName(AlertPhase phase);  // "pending", "firing", "resolved".

// A change of one rule's alert on one node.
struct AlertTransition {
  int64_t unix_ms = 0;
  std::string rule;
  std::string node;
  AlertPhase phase = AlertPhase::kPending;
  alerts::Severity severity = alerts::SEVERITY_UNSPECIFIED;
  double value = 0;     // The figure when it changed (for a resolved alert, the last that broke).
  std::string summary;  // Rendered.
};

// An alert pending or firing now.
struct ActiveAlert {
  std::string rule;
  std::string node;
  AlertPhase phase = AlertPhase::kPending;
  alerts::Severity severity = alerts::SEVERITY_UNSPECIFIED;
  int64_t since_ms = 0;         // When its condition began to hold.
  int64_t firing_since_ms = 0;  // 0 while pending.
  double value = 0;
  std::string summary;
};

// Evaluates every rule on every node it is told of, as Prometheus does: a condition that holds
// makes its alert pending, and firing once it has held for the rule's for_s (at once for 0); a
// pending alert whose condition stops holding is dropped without a trace, a firing one resolves.
// A figure that is not known does not hold (as a series Prometheus no longer scrapes).
//
// Thread safety: none; one owner.
class AlertEvaluator {
 public:
  explicit AlertEvaluator(alerts::Rules rules);

  const alerts::Rules& rules() const { return rules_; }
  // Evaluates every rule for `node` at `observation.unix_ms`; appends what changed to `changes`.
  void Observe(const std::string& node, const AlertObservation& observation,
               std::vector<AlertTransition>* changes);
  // Through a silence in a node's past (from `silent_from_ms`, where its stale allowance ran
  // out, until `until_ms`, exclusive): observes it not answering once a second, so each rule's
  // for_s is crossed at its time, but at most kMaxSilentObservations times (a silence of hours:
  // further apart).
  static constexpr int kMaxSilentObservations = 600;
  void ObserveSilence(const std::string& node, int64_t silent_from_ms, int64_t until_ms,
                      std::vector<AlertTransition>* changes);
  // Forgets a node (removed from the cluster): its alerts end without a "resolved".
  void Forget(const std::string& node);
  // Everything pending or firing, firing first, then by rule and node.
  std::vector<ActiveAlert> Active() const;

 private:
  struct Key {
    size_t rule;
    std::string node;
    bool operator<(const Key& o) const { return rule != o.rule ? rule < o.rule : node < o.node; }
  };
  // The corruptions a node saw in the last 15 minutes, from its counter's rises (a restart
  // resets the counter; that is no rise).
  double Corruptions15m(const std::string& node, const AlertObservation& observation);

  alerts::Rules rules_;
  std::map<Key, ActiveAlert> active_;
  std::map<std::string, std::deque<std::pair<int64_t, uint64_t>>> corruptions_;
};

}  // namespace railyard::cluster
