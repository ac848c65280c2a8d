// SPDX-License-Identifier: Apache-2.0
// Which servers a real client connects to: deterministic subsetting by client index, a
// replacement for a subset member that is down, and RemoveServer draining a server. Servers are
// real, on 127.0.0.1 with OS-chosen ports.
#include <QTest>
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <set>
#include <thread>
#include <vector>

#include "core/base/random.h"
#include "core/load/load_generator.h"
#include "core/rpc/subset_membership.h"
#include "tests/rpc/rpc_test_support.h"
#include "tests/support/qtest_main.h"

using namespace railyard;
using namespace railyard::rpc;
using namespace railyard::rpc::testing;
using namespace std::chrono_literals;

namespace {

// Addresses nobody listens on: the subset is computed without connecting, so no client here
// is started and nothing is dialled.
std::vector<Endpoint> UnusedEndpoints(size_t count) {
  std::vector<Endpoint> endpoints;
  for (size_t i = 0; i < count; ++i) {
    endpoints.push_back({"127.0.0.1", static_cast<uint16_t>(1 + i)});
  }
  return endpoints;
}

ClientOptions DeterministicOptions(std::vector<Endpoint> servers, size_t pool, size_t subset) {
  ClientOptions options = FastClientOptions(std::move(servers), pool);
  options.subset_mode = balance::SubsetMode::kDeterministic;
  options.subset_size = subset;
  return options;
}

// How many of `clients` have each of `backends` servers in their subset.
std::vector<size_t> ClientsPerBackend(const std::vector<std::unique_ptr<Client>>& clients,
                                      size_t backends) {
  std::vector<size_t> counts(backends, 0);
  for (const auto& client : clients) {
    for (const uint32_t server : client->Snapshot().subset) ++counts.at(server);
  }
  return counts;
}

size_t Spread(const std::vector<size_t>& counts) {
  const auto [low, high] = std::minmax_element(counts.begin(), counts.end());
  return *high - *low;
}

// An echo server (test.Echo) on `port` (0: the OS chooses), so a test can bring one back where
// it was.
std::unique_ptr<Server> StartEchoServer(const std::string& name, uint16_t port = 0) {
  ServerOptions options;
  options.name = name;
  options.port = port;
  options.io_threads = 1;
  auto server = std::make_unique<Server>(options);
  server->RegisterHandler(kEchoMethod, [](const CallContext&, std::string_view payload) {
    return Reply{Status::Ok(), std::string(payload)};
  });
  if (!server->Start().ok()) qFatal("test server %s failed to start", name.c_str());
  return server;
}

// A server whose test.Echo waits (at most ten seconds) until the gate opens.
struct GatedServer {
  std::unique_ptr<Server> server;
  std::shared_ptr<std::atomic<bool>> open = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<std::atomic<int>> entered = std::make_shared<std::atomic<int>>(0);
};

GatedServer StartGatedServer(const std::string& name) {
  GatedServer result;
  ServerOptions options;
  options.name = name;
  options.io_threads = 1;
  result.server = std::make_unique<Server>(options);
  result.server->RegisterHandler(kEchoMethod, [open = result.open, entered = result.entered](
                                                  const CallContext&, std::string_view payload) {
    entered->fetch_add(1);
    for (int i = 0; i < 10000 && !open->load(); ++i) std::this_thread::sleep_for(1ms);
    return Reply{Status::Ok(), std::string(payload)};
  });
  if (!result.server->Start().ok()) qFatal("test server %s failed to start", name.c_str());
  return result;
}

std::set<uint32_t> PooledServers(const Client& client) {
  std::set<uint32_t> pooled;
  for (const PoolEntrySnapshot& e : client.Snapshot().entries) pooled.insert(e.server);
  return pooled;
}

}  // namespace

class TestSubsetMembership : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // The chapter's rounds: with consecutive indexes every backend is in exactly as many subsets
  // (clients divisible into whole rounds), or within one of that.
  void consecutiveIndexesSpreadClientsEvenly() {
    constexpr size_t kBackends = 60;
    constexpr size_t kSubset = 6;  // Ten subsets per round.
    for (const size_t client_count : {size_t{120}, size_t{115}}) {
      std::vector<std::unique_ptr<Client>> clients;
      for (size_t i = 0; i < client_count; ++i) {
        ClientOptions options = DeterministicOptions(UnusedEndpoints(kBackends), 4, kSubset);
        options.client_index = i;
        clients.push_back(std::make_unique<Client>(options));
      }
      const std::vector<size_t> counts = ClientsPerBackend(clients, kBackends);
      QVERIFY2(Spread(counts) <= (client_count % 10 == 0 ? 0u : 1u),
               qPrintable(QString("%1 clients: spread %2").arg(client_count).arg(Spread(counts))));
    }
  }

  // What every client had before it could be given an index: its own 64-bit id, which puts it
  // in an arbitrary round at an arbitrary position, so backends get uneven numbers of clients.
  // (Fixed ids rather than random ones, so the test is repeatable.)
  void unrelatedIdsSpreadClientsUnevenly() {
    constexpr size_t kBackends = 60;
    std::vector<std::unique_ptr<Client>> clients;
    for (size_t i = 0; i < 120; ++i) {
      ClientOptions options = DeterministicOptions(UnusedEndpoints(kBackends), 4, 6);
      options.client_id = base::Mix64(i + 1);
      clients.push_back(std::make_unique<Client>(options));
    }
    const std::vector<size_t> counts = ClientsPerBackend(clients, kBackends);
    QVERIFY2(Spread(counts) > 1, qPrintable(QString("spread %1").arg(Spread(counts))));
  }

  // Without an index (or an explicit id standing for one) deterministic subsetting would be
  // random in practice, so Start says so rather than run unevenly; index 0 is a valid index.
  void deterministicSubsettingWithoutAnIndexIsRefused() {
    Client unindexed(DeterministicOptions(UnusedEndpoints(4), 2, 2));
    const Status refused = unindexed.Start();
    QCOMPARE(refused.code(), Code::kInvalidArgument);
    QVERIFY2(refused.message().find("client_index") != std::string::npos &&
                 refused.message().find("--client-index") != std::string::npos,
             refused.message().c_str());
    ClientOptions options = DeterministicOptions(UnusedEndpoints(4), 2, 2);
    options.client_index = 0;
    Client indexed(options);
    QVERIFY(indexed.Start().ok());
    QCOMPARE(indexed.Snapshot().subset, balance::DeterministicSubset(0, 4, 2));
    indexed.Stop();
  }

  // railyardctl load --client-index and the demo's clients reach the client through LoadOptions.
  void loadGeneratorSubsetsByItsIndex() {
    load::LoadOptions options;
    options.servers = UnusedEndpoints(12);
    options.subset_mode = balance::SubsetMode::kDeterministic;
    options.subset_size = 3;
    for (const uint64_t index : {uint64_t{0}, uint64_t{5}}) {
      options.client_index = index;
      load::LoadGenerator generator(options);
      QCOMPARE(generator.client().Snapshot().subset, balance::DeterministicSubset(index, 12, 3));
    }
  }

  // The clients of a dead backend each pick a stand-in outside their own subset, and not all the
  // same one: its load spreads over the others, as the chapter asks of a failure.
  void standInsForOneDeadServerSpreadOverTheOthers() {
    constexpr uint32_t kDead = 5;
    std::map<uint32_t, int> stand_ins;
    for (uint64_t index = 0; index < 40; ++index) {
      SubsetMembership membership(balance::SubsetMode::kDeterministic, 3, index, 0);
      for (int i = 0; i < 12; ++i) membership.Add();
      const std::vector<uint32_t> subset = membership.Subset();
      if (std::count(subset.begin(), subset.end(), kDead) == 0) continue;
      QVERIFY(membership.SetDown(kDead, true));
      const std::vector<uint32_t> replacements = membership.Replacements();
      QCOMPARE(replacements.size(), size_t{1});
      QVERIFY(std::count(subset.begin(), subset.end(), replacements[0]) == 0);
      QVERIFY(membership.Wanted(kDead));  // Still probed, to notice it is back.
      ++stand_ins[replacements[0]];
      QVERIFY(membership.SetDown(kDead, false));
      QVERIFY(membership.Replacements().empty());
    }
    QCOMPARE(std::accumulate(stand_ins.begin(), stand_ins.end(), 0,
                             [](int sum, const auto& entry) { return sum + entry.second; }),
             10);  // 40 clients, four subsets per round: ten have server 5.
    QVERIFY2(stand_ins.size() >= 4, qPrintable(QString("%1 stand-ins").arg(stand_ins.size())));
  }

  // A subset member that goes away is stood in for by a server outside the subset, and the
  // stand-in is dropped once the member is back.
  void deadMemberIsReplacedUntilItReturns() {
    std::vector<std::unique_ptr<Server>> servers;
    std::vector<Endpoint> endpoints;
    for (int i = 0; i < 4; ++i) {
      servers.push_back(StartEchoServer("s" + std::to_string(i)));
      endpoints.push_back(servers.back()->endpoint());
    }
    ClientOptions options = DeterministicOptions(endpoints, 4, 2);
    options.client_index = 1;
    Client client(options);
    QVERIFY(client.Start().ok());
    const std::vector<uint32_t> subset = client.Snapshot().subset;
    QCOMPARE(subset.size(), size_t{2});
    QVERIFY(
        WaitUntil([&] { return PooledServers(client) == std::set(subset.begin(), subset.end()); }));
    QVERIFY(client.Snapshot().replacements.empty());

    const uint32_t dead = subset[0];
    const uint16_t port = servers[dead]->port();
    servers[dead]->Stop();
    servers[dead].reset();
    uint32_t stand_in = 0;
    const bool replaced = WaitUntil([&] {
      const PoolSnapshot snapshot = client.Snapshot();
      if (snapshot.replacements.size() != 1) return false;
      stand_in = snapshot.replacements[0];
      return PooledServers(client).count(stand_in) > 0;
    });
    QVERIFY2(replaced, "no replacement was connected to");
    QVERIFY(std::count(subset.begin(), subset.end(), stand_in) == 0);
    QVERIFY(servers[stand_in]->counters().connections_accepted > 0);
    QCOMPARE(client.Call(kEchoMethod, "x").status.code(), Code::kOk);

    servers[dead] = StartEchoServer("s-back", port);
    const bool released = WaitUntil([&] {
      return client.Snapshot().replacements.empty() &&
             PooledServers(client) == std::set(subset.begin(), subset.end()) &&
             servers[stand_in]->SlotSnapshot().empty();
    });
    QString pooled;
    for (const uint32_t s : PooledServers(client)) pooled += QString(" %1").arg(s);
    QVERIFY2(released, qPrintable("the replacement was kept; pooled:" + pooled));
    client.Stop();
  }

  // RemoveServer drains: the calls in flight on the removed server finish OK, its connections
  // close after them, and no new call or connection goes to it.
  void removeServerDrainsWithoutFailingCallsInFlight() {
    std::vector<GatedServer> servers;
    servers.push_back(StartGatedServer("a"));
    servers.push_back(StartGatedServer("b"));
    const ClientOptions options =
        FastClientOptions({servers[0].server->endpoint(), servers[1].server->endpoint()}, 4);
    Client client(options);
    QVERIFY(client.Start().ok());
    QVERIFY(WaitUntil([&] {
      return client.Snapshot().entries.size() == 4 && PooledServers(client).size() == 2;
    }));

    // Every pooled connection busy, so some call is in flight on server 0.
    std::mutex mu;
    std::vector<CallResult> results;
    for (int i = 0; i < 4; ++i) {
      client.AsyncCall(kEchoMethod, "in flight", [&](CallResult&& result) {
        std::lock_guard lock(mu);
        results.push_back(std::move(result));
      });
    }
    QVERIFY(WaitUntil([&] { return *servers[0].entered + *servers[1].entered == 4; }));
    QVERIFY(*servers[0].entered > 0);

    const auto explains_server_0 = [&] {
      const std::optional<balance::Explanation> state = client.Snapshot().policy_state;
      return state &&
             std::any_of(state->backends.begin(), state->backends.end(),
                         [](const balance::BackendExplanation& b) { return b.backend == 0; });
    };
    QVERIFY(explains_server_0());

    QVERIFY(client.RemoveServer(0).ok());
    QCOMPARE(client.RemoveServer(0).code(), Code::kNotFound);
    QCOMPARE(PooledServers(client), std::set<uint32_t>{1});
    QVERIFY2(!servers[0].server->SlotSnapshot().empty(),
             "busy connections closed before their calls");
    const uint64_t accepted = servers[0].server->counters().connections_accepted;

    for (auto& s : servers) s.open->store(true);
    QVERIFY(WaitUntil([&] {
      std::lock_guard lock(mu);
      return results.size() == 4;
    }));
    int answered_by_removed = 0;
    for (const CallResult& result : results) {
      QVERIFY2(result.status.ok(), result.status.ToString().c_str());
      if (result.server == 0u) ++answered_by_removed;
    }
    QVERIFY(answered_by_removed > 0);
    QVERIFY2(WaitUntil([&] { return servers[0].server->SlotSnapshot().empty(); }),
             "the removed server's connections stayed open");

    const int entered = servers[0].entered->load();
    for (int i = 0; i < 20; ++i) {
      const CallResult result = client.Call(kEchoMethod, "after");
      QVERIFY2(result.status.ok(), result.status.ToString().c_str());
      QCOMPARE(result.server, std::optional<uint32_t>(1));
    }
    QCOMPARE(servers[0].entered->load(), entered);
    // Each acquirer may have been opening a connection to it when it was removed (refused at
    // admission, then closed); none starts one after.
    QVERIFY(servers[0].server->counters().connections_accepted - accepted <=
            options.refill_parallelism);
    QVERIFY(servers[0].server->SlotSnapshot().empty());
    QVERIFY(!explains_server_0());  // The balancer's telemetry no longer lists it.
    client.Stop();
  }
};

RAILYARD_QTEST_GUILESS_MAIN(TestSubsetMembership)
#include "tst_subset_membership.moc"
