// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/rolling_restart.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <thread>

#include "core/cluster/admin_client.h"
#include "core/cluster/drain_wait.h"
#include "core/cluster/replication_names.h"

namespace railyard::cluster {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds kPollEvery{200};
constexpr std::chrono::seconds kConnectTimeout{2};

std::optional<admin::Telemetry> TelemetryOf(const RollingRestartOptions& o,
                                            const CopyTarget& target, rpc::Status* why) {
  AdminClient client(target.admin, target.token, o.client_name, target.tls);
  admin::Telemetry t;
  *why = client.Connect(kConnectTimeout);
  if (why->ok()) *why = client.Telemetry(&t);
  if (!why->ok()) return std::nullopt;
  return t;
}

bool IsReplica(const admin::Telemetry& t) {
  return t.has_replication() && t.replication().role() == admin::DOCSTORE_REPLICA;
}

std::string Seconds(Clock::duration d) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f s", std::chrono::duration<double>(d).count());
  return text;
}

bool StopRequested(const RollingRestartOptions& o) {
  return o.stop && o.stop->load(std::memory_order_relaxed);
}

rpc::Status Step(const std::string& node, const std::string& what, const rpc::Status& s) {
  return {s.code(), node + ": " + what + ": " + s.message()};
}

// Every other replica that serves now; the node's own telemetry says whether it is a replica.
rpc::Status CheckNotLastReplica(const RollingRestartOptions& o, const CopyTarget& target) {
  rpc::Status why;
  const std::optional<admin::Telemetry> own = TelemetryOf(o, target, &why);
  if (!own) return Step(target.node, "telemetry", why);
  if (!IsReplica(*own) || o.allow_last_replica) return rpc::Status::Ok();
  for (const CopyTarget& other : o.cluster) {
    if (other.node == target.node) continue;
    const std::optional<admin::Telemetry> t = TelemetryOf(o, other, &why);
    if (t && IsReplica(*t) && t->state() == admin::NODE_SERVING) return rpc::Status::Ok();
  }
  return {rpc::Code::kFailedPrecondition,
          target.node +
              " is the last replica that serves: draining it leaves every read on the updater "
              "(allow it to go on anyway)"};
}

rpc::Status RestartOne(const RollingRestartOptions& o, const CopyTarget& target) {
  auto say = [&](const std::string& line) {
    if (o.progress) o.progress(target.node + ": " + line);
  };
  if (rpc::Status s = CheckNotLastReplica(o, target); !s.ok()) return s;
  AdminClient admin(target.admin, target.token, o.client_name, target.tls);
  if (rpc::Status s = admin.Connect(kConnectTimeout); !s.ok())
    return Step(target.node, "connect", s);
  admin::AdminResponse response;
  if (rpc::Status s = admin.Drain(&response); !s.ok()) return Step(target.node, "drain", s);
  const auto drain_start = Clock::now();
  say("draining");
  DrainWaitOptions wait;
  wait.deadline = drain_start + o.drain_timeout;
  wait.stop = o.stop;
  wait.on_change = [&](const DrainFigures& f) {
    say("waiting: " + std::to_string(f.client_slots) + " client slots held, " +
        std::to_string(f.busy) + " requests in flight");
  };
  DrainFigures left;
  if (rpc::Status s = WaitUntilDrained(admin, wait, &left); !s.ok()) {
    if (s.code() == rpc::Code::kCancelled) {
      // Nothing was restarted: the node goes back to serving as it was.
      rpc::Status undrained = admin.Undrain(&response);
      return {rpc::Code::kCancelled,
              target.node + ": stopped while draining; " +
                  (undrained.ok() ? "undrained again" : "left drained: " + undrained.ToString())};
    }
    if (s.code() == rpc::Code::kDeadlineExceeded) {
      return {rpc::Code::kDeadlineExceeded,
              target.node + ": not drained within " + Seconds(o.drain_timeout) + ": " +
                  std::to_string(left.client_slots) + " client slots still held"};
    }
    return Step(target.node, "telemetry", s);
  }
  say("drained in " + Seconds(Clock::now() - drain_start) + "; restarting");
  admin.Cancel();  // The process goes; so does this connection.
  const auto restart_start = Clock::now();
  if (rpc::Status s = o.restart(target.node); !s.ok()) return Step(target.node, "restart", s);
  // Serving again, and a replica caught up with the updater as it last heard it.
  rpc::Status last_why = {rpc::Code::kUnavailable, "no answer yet"};
  std::string last_state = "not answering";
  while (true) {
    const std::optional<admin::Telemetry> t = TelemetryOf(o, target, &last_why);
    if (!t) last_state = "not answering: " + last_why.ToString();
    if (t) {
      const bool serving = t->state() == admin::NODE_SERVING;
      const bool caught_up =
          !IsReplica(*t) || (t->replication().state() == admin::REPLICA_TAILING &&
                             ReplicaLagKnown(t->replication()) && t->replication().lag_docs() == 0);
      if (serving && caught_up) break;
      last_state = serving ? "serving, catching up" : "not serving yet";
    }
    if (StopRequested(o)) {
      return {rpc::Code::kCancelled, target.node +
                                         ": stopped while waiting for it to serve after its "
                                         "restart (" +
                                         last_state + ")"};
    }
    if (Clock::now() - restart_start > o.serve_timeout) {
      return {rpc::Code::kDeadlineExceeded, target.node + ": not serving and caught up within " +
                                                Seconds(o.serve_timeout) + " of its restart (" +
                                                last_state + ")"};
    }
    std::this_thread::sleep_for(kPollEvery);
  }
  say("serving and caught up " + Seconds(Clock::now() - restart_start) + " after the restart");
  // A restarted node serves; a restart that left the old process (a command that did nothing)
  // would leave it drained.
  AdminClient again(target.admin, target.token, o.client_name, target.tls);
  rpc::Status s = again.Connect(kConnectTimeout);
  if (s.ok()) s = again.Undrain(&response);
  if (!s.ok()) return Step(target.node, "undrain", s);
  say("undrained");
  return rpc::Status::Ok();
}

}  // namespace

std::vector<size_t> RestartOrder(const std::vector<const admin::Telemetry*>& telemetry) {
  std::vector<size_t> replicas, unknown, updaters;
  for (size_t i = 0; i < telemetry.size(); ++i) {
    const admin::Telemetry* t = telemetry[i];
    if (t && t->role() == admin::ROLE_CLIENT) continue;
    const admin::DocstoreRole role =
        t && t->has_replication() ? t->replication().role() : admin::DocstoreRole{};
    (role == admin::DOCSTORE_REPLICA   ? replicas
     : role == admin::DOCSTORE_UPDATER ? updaters
                                       : unknown)
        .push_back(i);
  }
  replicas.insert(replicas.end(), unknown.begin(), unknown.end());
  replicas.insert(replicas.end(), updaters.begin(), updaters.end());
  return replicas;
}

rpc::Status RollingRestart(const RollingRestartOptions& o) {
  std::vector<const CopyTarget*> order;
  if (o.nodes.empty()) {
    std::vector<admin::Telemetry> known(o.cluster.size());
    std::vector<const admin::Telemetry*> telemetry;
    for (size_t i = 0; i < o.cluster.size(); ++i) {
      rpc::Status why;
      std::optional<admin::Telemetry> t = TelemetryOf(o, o.cluster[i], &why);
      if (!t) return Step(o.cluster[i].node, "telemetry", why);
      known[i] = std::move(*t);
      telemetry.push_back(&known[i]);
    }
    for (const size_t i : RestartOrder(telemetry)) order.push_back(&o.cluster[i]);
  } else {
    for (const std::string& name : o.nodes) {
      const auto it = std::find_if(o.cluster.begin(), o.cluster.end(),
                                   [&](const CopyTarget& t) { return t.node == name; });
      if (it == o.cluster.end()) {
        return {rpc::Code::kNotFound, name + " is not a node of the cluster"};
      }
      order.push_back(&*it);
    }
  }
  for (size_t i = 0; i < order.size(); ++i) {
    if (StopRequested(o)) {
      return {rpc::Code::kCancelled, "stopped before " + order[i]->node + " (" + std::to_string(i) +
                                         " of " + std::to_string(order.size()) + " restarted)"};
    }
    if (o.node_started) o.node_started(i, order.size(), order[i]->node);
    if (o.progress) {
      o.progress("[" + std::to_string(i + 1) + "/" + std::to_string(order.size()) + "] " +
                 order[i]->node);
    }
    if (rpc::Status s = RestartOne(o, *order[i]); !s.ok()) return s;
  }
  return rpc::Status::Ok();
}

}  // namespace railyard::cluster
