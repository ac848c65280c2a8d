// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/alert_evaluator.h"

#include <algorithm>

#include "core/cluster/alert_rules.h"
#include "core/cluster/request_figures.h"

namespace railyard::cluster {

namespace {

constexpr int64_t kCorruptionWindowMs = 15 * 60 * 1000;

double Holds(bool condition) { return condition ? 1 : 0; }

}  // namespace

std::optional<double> DiskFreeShare(const admin::DiskSpace& disk) {
  if (disk.size_bytes() == 0) return std::nullopt;
  return static_cast<double>(disk.free_bytes()) / static_cast<double>(disk.size_bytes());
}

std::optional<double> AlertFigure(alerts::Figure figure, const AlertObservation& node,
                                  double corruptions_15m) {
  if (figure == alerts::NODE_NOT_ANSWERING) {
    if (!node.answering) return std::nullopt;
    return Holds(!*node.answering);
  }
  if (!node.answering.value_or(false) || node.telemetry == nullptr) return std::nullopt;
  const admin::Telemetry& t = *node.telemetry;
  const bool replica = t.has_replication() && t.replication().role() == admin::DOCSTORE_REPLICA;
  switch (figure) {
    case alerts::NODE_LAME_DUCK:
      return Holds(t.state() == admin::NODE_LAME_DUCK);
    case alerts::NODE_STARTING:
      return Holds(t.state() == admin::NODE_STARTING);
    case alerts::DISK_FREE_SHARE:
      if (!t.has_disk()) return std::nullopt;
      return DiskFreeShare(t.disk());
    case alerts::STORAGE_CORRUPTION:
      if (!t.has_storage()) return std::nullopt;
      return corruptions_15m;
    case alerts::WRITES_REFUSED:
      if (!t.has_storage()) return std::nullopt;
      return Holds(!t.storage().writes_refused().empty());
    case alerts::REPLICATION_LAG_SECONDS:
      if (!replica || !t.replication().lag_known()) return std::nullopt;
      return t.replication().lag_seconds();
    case alerts::REPLICA_DISCONNECTED:
      if (!replica) return std::nullopt;
      return Holds(t.replication().state() == admin::REPLICA_DISCONNECTED);
    case alerts::REPLICA_STOPPED:
      if (!replica) return std::nullopt;
      return Holds(t.replication().state() == admin::REPLICA_STOPPED);
    case alerts::FAILED_SHARE: {
      if (t.role() == admin::ROLE_CLIENT || t.throughput().requests_per_s() <= 0) {
        return std::nullopt;
      }
      return t.throughput().errors_per_s() / t.throughput().requests_per_s();
    }
    case alerts::SERVER_P99_MS:
      if (t.role() == admin::ROLE_CLIENT || LatencyRequestsPerS(t.throughput()) <= 0) {
        return std::nullopt;
      }
      return RequestP99Us(t.throughput()) / 1000.0;
    default:
      return std::nullopt;
  }
}

bool Breaks(const alerts::Rule& rule, double value) {
  switch (rule.figure()) {
    case alerts::DISK_FREE_SHARE:
      return value < rule.threshold();
    case alerts::REPLICATION_LAG_SECONDS:
    case alerts::FAILED_SHARE:
    case alerts::SERVER_P99_MS:
      return value > rule.threshold();
    case alerts::STORAGE_CORRUPTION:
      return value > 0;
    default:
      return value >= 1;
  }
}

const char* AlertPhaseName(AlertPhase phase) {
  switch (phase) {
    case AlertPhase::kPending:
      return "pending";
    case AlertPhase::kFiring:
      return "firing";
    case AlertPhase::kResolved:
      return "resolved";
  }
  return "?";
}

AlertEvaluator::AlertEvaluator(alerts::Rules rules) : rules_(std::move(rules)) {}

double AlertEvaluator::Corruptions15m(const std::string& node,
                                      const AlertObservation& observation) {
  if (!observation.answering.value_or(false) || observation.telemetry == nullptr ||
      !observation.telemetry->has_storage()) {
    return 0;
  }
  std::deque<std::pair<int64_t, uint64_t>>& seen = corruptions_[node];
  const uint64_t count = observation.telemetry->storage().corruptions_seen();
  // The counter's changes, each at the time it was first seen (an unchanged count adds nothing,
  // so a rise leaves the window 15 minutes after it); the last change before the window stays as
  // the base of the first one in it.
  if (seen.empty() || seen.back().second != count) seen.emplace_back(observation.unix_ms, count);
  while (seen.size() > 1 && seen[1].first < observation.unix_ms - kCorruptionWindowMs) {
    seen.pop_front();
  }
  double rises = 0;
  for (size_t i = 1; i < seen.size(); ++i) {
    if (seen[i].second > seen[i - 1].second) rises += double(seen[i].second - seen[i - 1].second);
  }
  return rises;
}

void AlertEvaluator::Observe(const std::string& node, const AlertObservation& observation,
                             std::vector<AlertTransition>* changes) {
  const double corruptions = Corruptions15m(node, observation);
  for (size_t i = 0; i < static_cast<size_t>(rules_.rule_size()); ++i) {
    const alerts::Rule& rule = rules_.rule(static_cast<int>(i));
    const std::optional<double> value = AlertFigure(rule.figure(), observation, corruptions);
    const bool breaks = value && Breaks(rule, *value);
    const Key key{i, node};
    auto it = active_.find(key);
    auto tell = [&](const ActiveAlert& a, AlertPhase phase) {
      changes->push_back(
          {observation.unix_ms, rule.name(), node, phase, rule.severity(), a.value, a.summary});
    };
    if (!breaks) {
      if (it == active_.end()) continue;
      if (it->second.phase == AlertPhase::kFiring) tell(it->second, AlertPhase::kResolved);
      active_.erase(it);
      continue;
    }
    if (it == active_.end()) {
      ActiveAlert a;
      a.rule = rule.name();
      a.node = node;
      a.severity = rule.severity();
      a.since_ms = observation.unix_ms;
      it = active_.emplace(key, std::move(a)).first;
    }
    ActiveAlert& a = it->second;
    a.value = *value;
    a.summary = RenderAlertText(rule.summary(), rule, node, *value);
    const bool due = observation.unix_ms - a.since_ms >= int64_t{rule.for_s()} * 1000;
    if (a.since_ms == observation.unix_ms && !due) tell(a, AlertPhase::kPending);
    if (a.phase == AlertPhase::kPending && due) {
      a.phase = AlertPhase::kFiring;
      a.firing_since_ms = observation.unix_ms;
      tell(a, AlertPhase::kFiring);
    }
  }
}

void AlertEvaluator::ObserveSilence(const std::string& node, int64_t silent_from_ms,
                                    int64_t until_ms, std::vector<AlertTransition>* changes) {
  const int64_t step =
      std::max<int64_t>(1000, (until_ms - silent_from_ms) / kMaxSilentObservations + 1);
  for (int64_t at = silent_from_ms; at < until_ms; at += step) {
    AlertObservation down;
    down.unix_ms = at;
    down.answering = false;
    Observe(node, down, changes);
  }
}

void AlertEvaluator::Forget(const std::string& node) {
  std::erase_if(active_, [&](const auto& entry) { return entry.first.node == node; });
  corruptions_.erase(node);
}

std::vector<ActiveAlert> AlertEvaluator::Active() const {
  std::vector<ActiveAlert> out;
  for (const auto& [key, alert] : active_) out.push_back(alert);
  std::stable_sort(out.begin(), out.end(), [](const ActiveAlert& a, const ActiveAlert& b) {
    return (a.phase == AlertPhase::kFiring) > (b.phase == AlertPhase::kFiring);
  });
  return out;
}

}  // namespace railyard::cluster
