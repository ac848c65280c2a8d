// SPDX-License-Identifier: Apache-2.0
#include "core/load/lab.h"

#include <fcntl.h>
#include <google/protobuf/text_format.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string_view>
#include <thread>

#include "core/cluster/text_files.h"
#include "core/load/cluster_folder.h"
#include "core/load/lab_network.h"
#include "core/load/node_process.h"

namespace railyard::load {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

constexpr char kStateFile[] = "lab.state";
constexpr char kNodeProgram[] = "railyard-node";
// A node's grace on SIGTERM: short, a lab restarts nodes often.
constexpr int kGraceMs = 1000;

fs::path StatePath(const std::string& dir) { return fs::path(dir) / kStateFile; }

rpc::Status SaveState(const std::string& dir, const lab::State& state) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(state, &text);
  const fs::path temporary = StatePath(dir).string() + ".tmp";
  if (rpc::Status s = WriteFile(temporary, text, 0644); !s.ok()) return s;
  std::error_code ec;
  fs::rename(temporary, StatePath(dir), ec);  // Whole or not at all, for a crash here.
  if (ec) return {rpc::Code::kInternal, "cannot write " + StatePath(dir).string()};
  return rpc::Status::Ok();
}

void Say(const LabOptions& o, const std::string& line) {
  if (o.progress) o.progress(line);
}

// 10.77.N: an N no interface of this machine uses yet.
bool PickSubnet(std::string* subnet) {
  std::mt19937 random(std::random_device{}());
  for (int attempt = 0; attempt < 50; ++attempt) {
    const int n = 1 + static_cast<int>(random() % 250);
    const std::string prefix = "10.77." + std::to_string(n) + ".";
    bool taken = false;
    ifaddrs* addresses = nullptr;
    if (::getifaddrs(&addresses) != 0) return false;
    for (ifaddrs* a = addresses; a; a = a->ifa_next) {
      if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET) continue;
      const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
      const uint32_t ip = ntohl(in->sin_addr.s_addr);
      taken |= (ip >> 8) == ((10u << 16) | (77u << 8) | static_cast<uint32_t>(n));
    }
    ::freeifaddrs(addresses);
    if (!taken) {
      *subnet = "10.77." + std::to_string(n);
      return true;
    }
  }
  return false;
}

bool IsClient(const lab::Host& host) { return host.role() == "client"; }

// The addresses a started host announced: a node's "LISTEN <service> ADMIN <admin>" line on its
// standard output (truncated at each start), a load client's "load: telemetry on <admin>" line in
// its log, read from `log_start` on: the log is appended to, and holds every earlier start's
// line too (`lab down` keeps it, and a lab brought up again in its folder listed a client at the
// address of the lab before it, on a subnet or port no longer its own).
bool Announced(const lab::Host& host, const fs::path& out, const fs::path& log,
               std::uintmax_t log_start, std::string* service, std::string* admin) {
  if (IsClient(host)) {
    std::ifstream in(log);
    in.seekg(static_cast<std::streamoff>(log_start));
    constexpr std::string_view kLine = "load: telemetry on ";
    for (std::string line; std::getline(in, line);) {
      if (line.starts_with(kLine)) {
        *admin = line.substr(kLine.size());
        return true;
      }
    }
    return false;
  }
  std::ifstream in(out);
  std::string word;
  return in >> word && word == "LISTEN" && in >> *service && in >> word && word == "ADMIN" &&
         in >> *admin;
}

// Waits until the host started as `pid` announces its addresses.
rpc::Status WaitListening(const lab::Host& host, pid_t pid, const fs::path& out,
                          const fs::path& log, std::uintmax_t log_start, std::string* service,
                          std::string* admin) {
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  while (Clock::now() < deadline) {
    if (Announced(host, out, log, log_start, service, admin)) return rpc::Status::Ok();
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      return {rpc::Code::kUnavailable, "exited before it listened; see " + log.string()};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return {rpc::Code::kDeadlineExceeded, "did not listen within 20 s; see " + log.string()};
}

rpc::Status StartHost(const std::string& dir, const lab::State& state, lab::Host* host) {
  const fs::path folder = fs::path(dir) / host->name();
  const std::string stem = IsClient(*host) ? "load" : "node";
  const fs::path out = folder / (stem + ".out"), log = folder / (stem + ".log");
  std::error_code no_log_yet;
  std::uintmax_t log_start = fs::file_size(log, no_log_yet);
  if (no_log_yet) log_start = 0;
  pid_t pid = -1;
  if (rpc::Status s = SpawnDetached(
          host->netns(), host->binary().empty() ? state.node_binary() : host->binary(),
          {host->args().begin(), host->args().end()}, out.string(), log.string(), &pid);
      !s.ok()) {
    return s;
  }
  host->set_pid(pid);
  std::string service, admin;
  if (rpc::Status s = WaitListening(*host, pid, out, log, log_start, &service, &admin); !s.ok()) {
    return {s.code(), host->name() + ": " + s.message()};
  }
  host->set_service(service);
  host->set_admin(admin);
  return rpc::Status::Ok();
}

// The node's command line: fixed ports on its own address (a namespace is a host of its own),
// the OS's choice on a shared loopback.
std::vector<std::string> NodeArgs(const std::string& dir, const lab::State& state,
                                  const lab::Host& host, const LabOptions& o) {
  const fs::path folder = fs::path(dir) / host.name();
  const std::string port = state.namespaces() ? "7000" : "0";
  const std::string admin_port = state.namespaces() ? "7001" : "0";
  std::vector<std::string> args = {"--name",
                                   host.name(),
                                   "--data-dir",
                                   (folder / "data").string(),
                                   "--listen",
                                   host.address() + ":" + port,
                                   "--admin-listen",
                                   host.address() + ":" + admin_port,
                                   "--viewer-token-file",
                                   LabViewerTokenFile(dir),
                                   "--operator-token-file",
                                   LabOperatorTokenFile(dir),
                                   "--replication-token-file",
                                   (fs::path(dir) / "replication-token").string(),
                                   "--memtable-entries",
                                   std::to_string(o.memtable_entries),
                                   "--grace-ms",
                                   std::to_string(kGraceMs),
                                   "--role",
                                   host.role()};
  if (host.role() == "replica") {
    args.insert(args.end(), {"--follow", state.host(0).service()});
  }
  return args;
}

// A load client's command line: writes to the updater, reads over its subset of the replicas,
// its telemetry on its own address, until `lab down`.
std::vector<std::string> ClientArgs(const std::string& dir, const lab::State& state,
                                    const lab::Host& host, int index, const LabOptions& o) {
  std::string reads;
  int servers = 0;
  for (const lab::Host& h : state.host()) {
    if (h.role() != "replica") continue;
    reads += (reads.empty() ? "" : ",") + h.service();
    ++servers;
  }
  if (servers == 0) {
    reads = state.host(0).service();
    servers = 1;
  }
  const int subset = std::min(o.client_subset, servers);
  char rate[32];
  std::snprintf(rate, sizeof(rate), "%g", o.client_rate);
  return {"load",
          "--name",
          host.name(),
          "--updater",
          state.host(0).service(),
          "--read",
          reads,
          "--subset",
          "deterministic",
          "--subset-size",
          std::to_string(subset),
          "--client-index",
          std::to_string(index),
          "--pool-size",
          std::to_string(subset),
          "--write-pool-size",
          "2",
          "--rate",
          rate,
          "--concurrency",
          "4",
          "--duration-s",
          "86400",
          "--progress-ms",
          "60000",
          "--admin-listen",
          host.address() + ":" + (state.namespaces() ? "7001" : "0"),
          "--admin-viewer-token-file",
          LabViewerTokenFile(dir),
          "--admin-operator-token-file",
          LabOperatorTokenFile(dir)};
}

constexpr const char* kNeighThresh[] = {"/proc/sys/net/ipv4/neigh/default/gc_thresh1",
                                        "/proc/sys/net/ipv4/neigh/default/gc_thresh2",
                                        "/proc/sys/net/ipv4/neigh/default/gc_thresh3"};

std::optional<int64_t> ReadSysctl(const char* path) {
  std::ifstream in(path);
  int64_t value = 0;
  if (!(in >> value)) return std::nullopt;
  return value;
}

bool WriteSysctl(const char* path, int64_t value) {
  std::ofstream out(path);
  out << value << "\n";
  out.flush();
  return static_cast<bool>(out);
}

// Every namespace's neighbour entries count against one table (1024 by default). A host keeps
// one for each peer it talks to: a client its subset and the updater, a replica its updater and
// its readers, the updater everyone. Raises the limits (recorded first, for LabDown) when the
// hosts could need more than the table holds.
rpc::Status RaiseNeighbourLimits(const std::string& dir, lab::State* state, const LabOptions& o) {
  const int64_t hosts = state->host_size() + 1;  // And the machine's own way in.
  const int64_t needed = hosts * (o.client_subset + 4) * 4;
  std::vector<int64_t> before;
  for (const char* path : kNeighThresh) {
    const std::optional<int64_t> value = ReadSysctl(path);
    if (!value) return rpc::Status::Ok();  // Not this kernel's: nothing to raise.
    before.push_back(*value);
  }
  if (before[2] >= needed) return rpc::Status::Ok();
  const std::vector<int64_t> set = {std::max(before[0], needed / 4), std::max(before[1], needed),
                                    std::max(before[2], needed * 2)};
  state->mutable_neigh_thresh_before()->Assign(before.begin(), before.end());
  state->mutable_neigh_thresh_set()->Assign(set.begin(), set.end());
  if (rpc::Status s = SaveState(dir, *state); !s.ok()) return s;
  // Highest first: each must stay at or below the next.
  for (int i = 2; i >= 0; --i) {
    if (!WriteSysctl(kNeighThresh[i], set[static_cast<size_t>(i)])) {
      return {rpc::Code::kInternal, std::string("cannot write ") + kNeighThresh[i]};
    }
  }
  Say(o, "raised the kernel's neighbour table limits (net.ipv4.neigh.default.gc_thresh1..3) from " +
             std::to_string(before[0]) + "/" + std::to_string(before[1]) + "/" +
             std::to_string(before[2]) + " to " + std::to_string(set[0]) + "/" +
             std::to_string(set[1]) + "/" + std::to_string(set[2]) + " for " +
             std::to_string(hosts) + " hosts; lab down puts them back");
  return rpc::Status::Ok();
}

// Puts back what RaiseNeighbourLimits raised, unless someone changed them since.
void RestoreNeighbourLimits(const lab::State& state, std::vector<std::string>* removed) {
  if (state.neigh_thresh_before_size() != 3 || state.neigh_thresh_set_size() != 3) return;
  for (int i = 0; i < 3; ++i) {
    if (ReadSysctl(kNeighThresh[i]) != state.neigh_thresh_set(i)) return;
  }
  for (int i = 0; i < 3; ++i) WriteSysctl(kNeighThresh[i], state.neigh_thresh_before(i));
  removed->push_back("put the kernel's neighbour table limits back to " +
                     std::to_string(state.neigh_thresh_before(0)) + "/" +
                     std::to_string(state.neigh_thresh_before(1)) + "/" +
                     std::to_string(state.neigh_thresh_before(2)));
}

rpc::Status MakeNetwork(const std::string& dir, lab::State* state, const LabOptions& o) {
  if (rpc::Status s = RaiseNeighbourLimits(dir, state, o); !s.ok()) return s;
  const std::string br = state->bridge_netns();
  state->add_netns_made(br);
  if (rpc::Status s = SaveState(dir, *state); !s.ok()) return s;
  for (const std::vector<std::string>& step : std::vector<std::vector<std::string>>{
           {"ip", "netns", "add", br},
           {"ip", "-n", br, "link", "add", "br0", "type", "bridge"},
           {"ip", "-n", br, "link", "set", "br0", "up"}}) {
    if (rpc::Status s = RunTool(step); !s.ok()) return s;
  }
  // The machine's own way in.
  const std::string root_peer = state->id() + "m";
  state->set_root_if(state->id() + "r");
  if (rpc::Status s = SaveState(dir, *state); !s.ok()) return s;
  for (const std::vector<std::string>& step : std::vector<std::vector<std::string>>{
           {"ip", "link", "add", state->root_if(), "type", "veth", "peer", "name", root_peer},
           {"ip", "link", "set", root_peer, "netns", br},
           {"ip", "-n", br, "link", "set", root_peer, "master", "br0"},
           {"ip", "-n", br, "link", "set", root_peer, "up"},
           {"ip", "addr", "add", state->subnet() + ".254/24", "dev", state->root_if()},
           {"ip", "link", "set", state->root_if(), "up"}}) {
    if (rpc::Status s = RunTool(step); !s.ok()) return s;
  }
  for (int i = 0; i < state->host_size(); ++i) {
    lab::Host* h = state->mutable_host(i);
    state->add_netns_made(h->netns());
    if (rpc::Status s = SaveState(dir, *state); !s.ok()) return s;
    const std::string outside = state->id() + "h" + std::to_string(i);
    for (const std::vector<std::string>& step : std::vector<std::vector<std::string>>{
             {"ip", "netns", "add", h->netns()},
             {"ip", "link", "add", outside, "type", "veth", "peer", "name", h->bridge_port()},
             {"ip", "link", "set", outside, "netns", h->netns()},
             {"ip", "-n", h->netns(), "link", "set", outside, "name", h->host_if()},
             {"ip", "link", "set", h->bridge_port(), "netns", br},
             {"ip", "-n", br, "link", "set", h->bridge_port(), "master", "br0"},
             {"ip", "-n", br, "link", "set", h->bridge_port(), "up"},
             {"ip", "-n", h->netns(), "addr", "add", h->address() + "/24", "dev", h->host_if()},
             {"ip", "-n", h->netns(), "link", "set", h->host_if(), "up"},
             {"ip", "-n", h->netns(), "link", "set", "lo", "up"}}) {
      if (rpc::Status s = RunTool(step); !s.ok()) return s;
    }
    Say(o, "host " + h->name() + ": namespace " + h->netns() + ", address " + h->address());
  }
  return rpc::Status::Ok();
}

rpc::Status WriteLabClusterFile(const std::string& dir, const lab::State& state) {
  std::string text =
      "# The lab (railyard.config.Cluster): one updater, its replicas, its load clients.\n";
  text += "name: \"railyard-lab\"\n";
  for (const lab::Host& h : state.host()) {
    text += "node { name: " + Quoted(h.name()) +
            (IsClient(h) ? std::string() : " service: " + Quoted(h.service())) +
            " admin: " + Quoted(h.admin()) + " role: " + Quoted(h.role()) + " }\n";
  }
  if (!state.restart_command().empty()) {
    text += "restart_command: " + Quoted(state.restart_command()) + "\n";
  }
  return WriteFile(LabClusterFile(dir), text, 0644);
}

lab::Host* FindHost(lab::State* state, const std::string& name) {
  for (lab::Host& h : *state->mutable_host()) {
    if (h.name() == name) return &h;
  }
  return nullptr;
}

rpc::Status NoSuchHost(const lab::State& state, const std::string& name) {
  std::string names;
  for (const lab::Host& h : state.host()) names += (names.empty() ? "" : ", ") + h.name();
  return {rpc::Code::kNotFound, "the lab has no host " + name + " (it has " + names + ")"};
}

// Waits up to `timeout` for `pid` (running `program`) to end (reaping it if it is ours).
bool WaitGone(pid_t pid, const std::string& program, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    int status = 0;
    ::waitpid(pid, &status, WNOHANG);
    if (!ProcessRuns(pid, program)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !ProcessRuns(pid, program);
}

}  // namespace

std::string LabHostProgram(const lab::Host& host) {
  return IsClient(host) ? "railyardctl" : kNodeProgram;
}

std::string LabClusterFile(const std::string& dir) {
  return (fs::path(dir) / "cluster.textproto").string();
}
std::string LabViewerTokenFile(const std::string& dir) {
  return (fs::path(dir) / "viewer-token").string();
}
std::string LabOperatorTokenFile(const std::string& dir) {
  return (fs::path(dir) / "operator-token").string();
}

rpc::Status ReadLabState(const std::string& dir, lab::State* state) {
  if (!fs::exists(StatePath(dir))) {
    return {rpc::Code::kNotFound, "no lab in " + dir + " (no " + kStateFile + ")"};
  }
  return cluster::ParseTextProtoFile(StatePath(dir).string(), state);
}

rpc::Status LabUp(const LabOptions& o, lab::State* state) {
  if (lab::State existing; ReadLabState(o.dir, &existing).ok()) {
    return {rpc::Code::kFailedPrecondition,
            "a lab is up in " + o.dir + ": railyardctl lab down --dir " + o.dir + " first"};
  }
  if (o.replicas < 0 || o.replicas > 200) {
    return {rpc::Code::kInvalidArgument, "--replicas must be 0 to 200"};
  }
  // One /24 holds them all, beside the machine's .254.
  if (o.clients < 0 || o.replicas + 1 + o.clients > 250) {
    return {rpc::Code::kInvalidArgument,
            "--clients must be 0 or more, and at most 250 hosts in all"};
  }
  if (o.clients > 0 && (o.client_subset < 1 || !(o.client_rate > 0))) {
    return {rpc::Code::kInvalidArgument, "--client-subset and --client-rate must be positive"};
  }
  if (o.clients > 0 && o.ctl_binary.empty()) {
    return {rpc::Code::kInvalidArgument, "load clients need railyardctl's path (ctl_binary)"};
  }
  std::error_code ec;
  fs::create_directories(o.dir, ec);
  if (ec) return {rpc::Code::kInternal, "cannot create " + o.dir + ": " + ec.message()};
  *state = lab::State();
  std::string binary = o.node_binary;
  if (binary.empty()) {
    if (rpc::Status s = FindNodeBinary(&binary); !s.ok()) return s;
  }
  state->set_node_binary(fs::absolute(binary).string());
  state->set_restart_command(o.restart_command);
  std::string why;
  const bool namespaces = o.namespaces && NamespacesAvailable(&why);
  if (o.namespaces && !namespaces) {
    Say(o, "no network namespaces (" + why +
               "): every host on a loopback address of its own (127.0.0.N); partitions are not "
               "available");
  }
  state->set_namespaces(namespaces);
  std::mt19937 random(std::random_device{}());
  char id[8];
  std::snprintf(id, sizeof(id), "ry%04x", static_cast<unsigned>(random() & 0xffff));
  state->set_id(id);
  // Two labs coming up at once must not pick one subnet: the pick and the machine's address on
  // it happen under a lock (released when LabUp returns).
  struct SubnetLock {
    int fd = -1;
    ~SubnetLock() {
      if (fd >= 0) ::close(fd);
    }
  } subnet_lock;
  if (namespaces) {
    subnet_lock.fd = ::open("/run/railyard-lab.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (subnet_lock.fd >= 0) ::flock(subnet_lock.fd, LOCK_EX);
    std::string subnet;
    if (!PickSubnet(&subnet)) return {rpc::Code::kInternal, "no free 10.77.N.0/24 subnet"};
    state->set_subnet(subnet);
    state->set_bridge_netns(state->id() + "-bridge");
  }
  for (int i = 0; i <= o.replicas + o.clients; ++i) {
    lab::Host* h = state->add_host();
    if (i > o.replicas) {
      h->set_name("client" + std::to_string(i - o.replicas));
      h->set_role("client");
      h->set_binary(fs::absolute(o.ctl_binary).string());
    } else {
      h->set_name(i == 0 ? "updater" : "replica" + std::to_string(i));
      h->set_role(i == 0 ? "updater" : "replica");
    }
    if (namespaces) {
      h->set_address(state->subnet() + "." + std::to_string(i + 1));
      h->set_netns(state->id() + "-" + h->name());
      h->set_host_if("eth0");
      h->set_bridge_port(state->id() + "p" + std::to_string(i));
    } else {
      h->set_address("127.0.0." + std::to_string(i + 2));
    }
    fs::create_directories(fs::path(o.dir) / h->name(), ec);
  }
  rpc::Status s = WriteFile(LabViewerTokenFile(o.dir), RandomToken() + "\n", 0600);
  if (s.ok()) s = WriteFile(LabOperatorTokenFile(o.dir), RandomToken() + "\n", 0600);
  if (s.ok()) s = WriteFile(fs::path(o.dir) / "replication-token", RandomToken() + "\n", 0600);
  if (s.ok()) s = SaveState(o.dir, *state);
  if (s.ok() && namespaces) s = MakeNetwork(o.dir, state, o);
  for (int i = 0; s.ok() && i < state->host_size(); ++i) {
    lab::Host* h = state->mutable_host(i);
    // Nodes come first in the hosts, so a client's servers have their addresses by now.
    std::vector<std::string> args = IsClient(*h)
                                        ? ClientArgs(o.dir, *state, *h, i - o.replicas - 1, o)
                                        : NodeArgs(o.dir, *state, *h, o);
    h->mutable_args()->Assign(args.begin(), args.end());
    s = StartHost(o.dir, *state, h);
    if (rpc::Status saved = SaveState(o.dir, *state); s.ok()) s = saved;
    if (s.ok()) {
      // Restarts take the same addresses, as the OS first chose them on a shared loopback.
      for (int a = 0; a + 1 < h->args_size(); ++a) {
        if (h->args(a) == "--listen") h->set_args(a + 1, h->service());
        if (h->args(a) == "--admin-listen") h->set_args(a + 1, h->admin());
      }
      Say(o, "host " + h->name() + ": " + h->role() + " pid " + std::to_string(h->pid()) +
                 (IsClient(*h) ? std::string() : ", service " + h->service()) + ", admin " +
                 h->admin());
    }
  }
  if (s.ok()) s = SaveState(o.dir, *state);
  if (s.ok()) s = WriteLabClusterFile(o.dir, *state);
  if (!s.ok()) {
    return {s.code(), s.message() + " (what was made is recorded: railyardctl lab down --dir " +
                          o.dir + " removes it)"};
  }
  return rpc::Status::Ok();
}

rpc::Status LabDown(const std::string& dir, std::vector<std::string>* removed) {
  lab::State state;
  if (rpc::Status s = ReadLabState(dir, &state); !s.ok()) {
    return s.code() == rpc::Code::kNotFound ? rpc::Status::Ok() : s;
  }
  // Clients first (they are last in the hosts), so that no node sees them fail over.
  for (auto it = state.host().rbegin(); it != state.host().rend(); ++it) {
    const lab::Host& h = *it;
    if (ProcessRuns(h.pid(), LabHostProgram(h))) {
      ::kill(h.pid(), SIGKILL);
      WaitGone(h.pid(), LabHostProgram(h), std::chrono::seconds(5));
      removed->push_back("killed " + h.name() + " (pid " + std::to_string(h.pid()) + ")");
    }
  }
  rpc::Status result = rpc::Status::Ok();
  // A namespace's links go with it; the machine's own veth goes with its peer in the bridge's.
  for (auto it = state.netns_made().rbegin(); it != state.netns_made().rend(); ++it) {
    if (!fs::exists("/run/netns/" + *it)) continue;
    if (rpc::Status s = RunTool({"ip", "netns", "del", *it}); !s.ok()) {
      result = s;
    } else {
      removed->push_back("removed namespace " + *it);
    }
  }
  if (!state.root_if().empty() && fs::exists("/sys/class/net/" + state.root_if())) {
    if (RunTool({"ip", "link", "del", state.root_if()}).ok()) {
      removed->push_back("removed link " + state.root_if());
    }
  }
  if (!result.ok()) return result;  // lab.state stays, for another try.
  RestoreNeighbourLimits(state, removed);
  std::error_code ec;
  fs::remove(StatePath(dir), ec);
  return rpc::Status::Ok();
}

rpc::Status LabHost(const std::string& dir, const std::string& name, LabHostAction action) {
  lab::State state;
  if (rpc::Status s = ReadLabState(dir, &state); !s.ok()) return s;
  lab::Host* h = FindHost(&state, name);
  if (!h) return NoSuchHost(state, name);
  const std::string program = LabHostProgram(*h);
  const bool running = ProcessRuns(h->pid(), program);
  switch (action) {
    case LabHostAction::kKill:
    case LabHostAction::kPause:
    case LabHostAction::kResume:
      if (!running) return {rpc::Code::kFailedPrecondition, name + " is not running"};
      ::kill(h->pid(), action == LabHostAction::kKill    ? SIGKILL
                       : action == LabHostAction::kPause ? SIGSTOP
                                                         : SIGCONT);
      if (action == LabHostAction::kKill && !WaitGone(h->pid(), program, std::chrono::seconds(5))) {
        return {rpc::Code::kInternal, name + " did not die on SIGKILL"};
      }
      return rpc::Status::Ok();
    case LabHostAction::kStop:
    case LabHostAction::kRestart:
      if (running) {
        ::kill(h->pid(), SIGCONT);  // A paused node cannot drain.
        ::kill(h->pid(), SIGTERM);
        if (!WaitGone(h->pid(), program, std::chrono::milliseconds(kGraceMs + 10000))) {
          return {rpc::Code::kDeadlineExceeded, name + " did not exit on SIGTERM"};
        }
      }
      if (action == LabHostAction::kStop) return rpc::Status::Ok();
      [[fallthrough]];
    case LabHostAction::kStart:
      if (ProcessRuns(h->pid(), program)) {
        return {rpc::Code::kFailedPrecondition,
                name + " is running (pid " + std::to_string(h->pid()) + ")"};
      }
      {
        rpc::Status s = StartHost(dir, state, h);
        if (rpc::Status saved = SaveState(dir, state); s.ok()) s = saved;
        return s;
      }
  }
  return rpc::Status::Ok();
}

rpc::Status LabPartition(const std::string& dir, const std::string& name, LabCut cut) {
  lab::State state;
  if (rpc::Status s = ReadLabState(dir, &state); !s.ok()) return s;
  lab::Host* h = FindHost(&state, name);
  if (!h) return NoSuchHost(state, name);
  if (!state.namespaces()) {
    return {rpc::Code::kFailedPrecondition,
            "this lab runs without network namespaces (not root when it came up): no partitions"};
  }
  rpc::Status s = rpc::Status::Ok();
  switch (cut) {
    case LabCut::kSilent:
      if (h->cut_silently()) return rpc::Status::Ok();
      h->set_cut_silently(true);
      s = SaveState(dir, state);
      // Both directions: the bridge's port towards the host, and the host's own link out.
      if (s.ok()) {
        s = RunTool({"tc", "-n", state.bridge_netns(), "qdisc", "add", "dev", h->bridge_port(),
                     "root", "tbf", "rate", "8bit", "burst", "1", "limit", "1"});
      }
      if (s.ok()) {
        s = RunTool({"tc", "-n", h->netns(), "qdisc", "add", "dev", h->host_if(), "root", "tbf",
                     "rate", "8bit", "burst", "1", "limit", "1"});
      }
      return s;
    case LabCut::kLoud:
      if (h->cut_loudly()) return rpc::Status::Ok();
      h->set_cut_loudly(true);
      s = SaveState(dir, state);
      if (s.ok()) s = RunTool({"ip", "-n", h->netns(), "link", "set", h->host_if(), "down"});
      return s;
    case LabCut::kIsolate:
      if (h->isolated()) return rpc::Status::Ok();
      h->set_isolated(true);
      s = SaveState(dir, state);
      if (s.ok()) {
        s = RunTool({"bridge", "-n", state.bridge_netns(), "link", "set", "dev", h->bridge_port(),
                     "isolated", "on"});
      }
      return s;
  }
  return s;
}

rpc::Status LabHeal(const std::string& dir, const std::string& name) {
  lab::State state;
  if (rpc::Status s = ReadLabState(dir, &state); !s.ok()) return s;
  lab::Host* h = FindHost(&state, name);
  if (!h) return NoSuchHost(state, name);
  if (!state.namespaces()) return rpc::Status::Ok();
  rpc::Status s = rpc::Status::Ok();
  if (h->cut_silently()) {
    s = RunTool(
        {"tc", "-n", state.bridge_netns(), "qdisc", "del", "dev", h->bridge_port(), "root"});
    if (s.ok()) s = RunTool({"tc", "-n", h->netns(), "qdisc", "del", "dev", h->host_if(), "root"});
    if (s.ok()) h->set_cut_silently(false);
  }
  if (s.ok() && h->cut_loudly()) {
    s = RunTool({"ip", "-n", h->netns(), "link", "set", h->host_if(), "up"});
    if (s.ok()) h->set_cut_loudly(false);
  }
  if (s.ok() && h->isolated()) {
    s = RunTool({"bridge", "-n", state.bridge_netns(), "link", "set", "dev", h->bridge_port(),
                 "isolated", "off"});
    if (s.ok()) h->set_isolated(false);
  }
  if (rpc::Status saved = SaveState(dir, state); s.ok()) s = saved;
  return s;
}

}  // namespace railyard::load
