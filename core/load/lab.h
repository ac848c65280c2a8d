// SPDX-License-Identifier: Apache-2.0
#pragma once

// A lab of hosts on one machine (`railyardctl lab`): one updater and its replicas, each
// railyard-node a host of its own, and load clients (`railyardctl load`), each a host of its own
// too, writing to the updater and reading from a deterministic subset of the replicas, their
// telemetry on their own admin address (the cluster file lists them with role "client").
//
// As root, each host is a network namespace with its own address on a private /24 (10.77.N.I),
// joined to the others by a bridge inside a namespace the lab makes. No host has a route off
// that subnet, so nothing leaves it; the machine itself reaches the hosts through one veth of its
// own (10.77.N.254), so that railyardctl and the console watch the lab as they would real hosts.
// Without the privilege the hosts share the machine's network on addresses of their own
// (127.0.0.2, 127.0.0.3, ...), and partitions are not available (the lab says so).
//
// The kernel keeps one neighbour (ARP) table for every namespace, 1024 entries by default; a lab
// whose hosts could need more raises net.ipv4.neigh.default.gc_thresh1..3 (and says so), and
// `lab down` puts them back unless they were changed since.
// Everything the lab makes (namespaces, links, processes) is written to <dir>/lab.state before it
// is made, so LabDown removes it all, also after the lab's own command crashed half-way. The
// nodes run detached: they outlive the command that started them, until `lab down`.
//
// Partitions, by host: a silent cut drops every frame to and from it (a tbf qdisc at 8 bit/s on
// both ends of its link: the kernel here has tbf, not netem); a loud cut takes its link down;
// isolating two or more hosts cuts them from each other only (bridge port isolation), silently,
// while every other host and the machine still reach them. Heal undoes all three.
//
// Thread safety: none; one command at a time per lab folder (they read and write lab.state).

#include <functional>
#include <string>
#include <vector>

#include "core/rpc/status.h"
#include "railyard/lab.pb.h"

namespace railyard::load {

struct LabOptions {
  std::string dir;          // Holds lab.state, cluster.textproto, tokens and each host's folder.
  std::string node_binary;  // Empty: FindNodeBinary().
  int replicas = 2;
  bool namespaces = true;  // false: loopback addresses, as without the privilege.
  size_t memtable_entries = 20000;
  // Load clients: each runs `<ctl_binary> load` at client_rate calls/s (open loop), a tenth of
  // them writes, reads over client_subset replicas (deterministic subsetting; the updater when
  // there is no replica), until `lab down`.
  int clients = 0;
  std::string ctl_binary;  // railyardctl; required with clients.
  int client_subset = 8;
  double client_rate = 20;
  // The cluster file's restart_command (config.Cluster), for rolling restarts of the lab; the
  // lab command gives "<its own path> lab restart {name} --dir <dir>".
  std::string restart_command;
  std::function<void(const std::string&)> progress;  // One line per step; may be empty.
};

// Makes the hosts and starts their nodes (the updater first), waits until each listens, and
// writes <dir>/cluster.textproto. FAILED_PRECONDITION if a lab is up in `dir` already. On a
// failure, what was made stays recorded for LabDown, and the error says so.
rpc::Status LabUp(const LabOptions& options, lab::State* state);
// Kills the lab's processes (by the PIDs recorded, if they still run railyard-node), removes
// its namespaces and links and its lab.state; the hosts' data and logs stay. `removed` lists
// what it did. OK with nothing to do.
rpc::Status LabDown(const std::string& dir, std::vector<std::string>* removed);
rpc::Status ReadLabState(const std::string& dir, lab::State* state);

enum class LabHostAction {
  kKill,     // SIGKILL.
  kStop,     // SIGTERM: the node drains and exits (waited for, up to its grace and a little).
  kPause,    // SIGSTOP.
  kResume,   // SIGCONT.
  kStart,    // Starts it again on its addresses and data, once it no longer runs.
  kRestart,  // kStop, then kStart.
};
// On host `host` (a name from the state; a client's `railyardctl load` as a node). NOT_FOUND for
// no such host.
rpc::Status LabHost(const std::string& dir, const std::string& host, LabHostAction action);

enum class LabCut { kSilent, kLoud, kIsolate };
// FAILED_PRECONDITION on a lab without namespaces.
rpc::Status LabPartition(const std::string& dir, const std::string& host, LabCut cut);
rpc::Status LabHeal(const std::string& dir, const std::string& host);

// What a host's recorded PID must run to be its process: "railyard-node", or "railyardctl" for a
// load client.
std::string LabHostProgram(const lab::Host& host);

std::string LabClusterFile(const std::string& dir);
std::string LabViewerTokenFile(const std::string& dir);
std::string LabOperatorTokenFile(const std::string& dir);

}  // namespace railyard::load
