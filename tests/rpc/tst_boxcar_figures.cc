// SPDX-License-Identifier: Apache-2.0
// The Boxcar seed's figures 1 to 8, played with real servers and clients on 127.0.0.1.
#include <QTest>
#include <set>

#include "tests/rpc/rpc_test_support.h"
#include "tests/support/qtest_main.h"

using namespace railyard::rpc;
using namespace railyard::rpc::testing;

namespace {

// Every client holds a full pool, and together they hold exactly `slots` on server `server`.
bool PoolsHold(const std::vector<std::unique_ptr<Client>>& clients, uint32_t server,
               const std::set<uint32_t>& slots) {
  std::multiset<uint32_t> held;
  for (const auto& client : clients) {
    const PoolSnapshot pool = client->Snapshot();
    if (pool.entries.size() != pool.capacity) return false;
    for (uint32_t slot : PooledSlots(*client, server)) held.insert(slot);
  }
  return std::set<uint32_t>(held.begin(), held.end()) == slots && held.size() == slots.size();
}

std::string Describe(const std::vector<std::unique_ptr<Client>>& clients) {
  std::string out;
  for (size_t i = 0; i < clients.size(); ++i) {
    out += "client " + std::to_string(i) + ":";
    for (const auto& e : clients[i]->Snapshot().entries) {
      out += " s" + std::to_string(e.server) + "/" + std::to_string(e.slot);
    }
    out += "; ";
  }
  return out;
}

std::unique_ptr<Client> StartClient(std::vector<Endpoint> servers, size_t pool_size,
                                    const std::string& name) {
  ClientOptions options = FastClientOptions(std::move(servers), pool_size);
  options.client_name = name;
  auto client = std::make_unique<Client>(options);
  if (!client->Start().ok()) return nullptr;
  return client;
}

}  // namespace

class BoxcarFiguresTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // Figure 1: each client's pool holds the lowest slot the server has.
  void figure1_poolHoldsTheLowestSlot() {
    TestServer server = StartTestServer("s1");
    auto client = StartClient({server.server->endpoint()}, 1, "c1");
    QVERIFY(WaitUntil([&] { return PooledSlots(*client, 0) == std::vector<uint32_t>{0}; }));
    QCOMPARE(client->Call(kEchoMethod, "hi").payload, std::string("hi"));
    const auto slots = server.server->SlotSnapshot();
    QVERIFY(!slots.empty());
    QCOMPARE(slots.front().slot, 0u);
    QCOMPARE(slots.front().client_id, client->client_id());
    QCOMPARE(slots.front().requests, uint64_t{1});
  }

  // Figures 2 and 3: a client with the low slots vanishes; the survivor takes them over.
  void figures2and3_vanishedClientsSlotsAreTakenOver() {
    TestServer s1 = StartTestServer("s1");
    TestServer s2 = StartTestServer("s2");
    const std::vector<Endpoint> servers{s1.server->endpoint(), s2.server->endpoint()};
    std::vector<std::unique_ptr<Client>> clients;
    clients.push_back(StartClient(servers, 2, "c1"));
    QVERIFY2(WaitUntil([&] {
               return PooledSlots(*clients[0], 0) == std::vector<uint32_t>{0} &&
                      PooledSlots(*clients[0], 1) == std::vector<uint32_t>{0};
             }),
             Describe(clients).c_str());
    clients.push_back(StartClient(servers, 2, "c2"));
    QVERIFY2(WaitUntil([&] {
               return PooledSlots(*clients[1], 0) == std::vector<uint32_t>{1} &&
                      PooledSlots(*clients[1], 1) == std::vector<uint32_t>{1};
             }),
             Describe(clients).c_str());

    clients[0]->Stop();  // Client 1 vanishes.
    QVERIFY2(WaitUntil([&] {
               return PooledSlots(*clients[1], 0) == std::vector<uint32_t>{0} &&
                      PooledSlots(*clients[1], 1) == std::vector<uint32_t>{0};
             }),
             Describe(clients).c_str());
    QVERIFY(clients[1]->Snapshot().counters.replacements >= 2);
  }

  // Figures 4 to 8: three clients on two servers; server 2 goes away and the clients settle on
  // the best slots of server 1; a new server is added and the clients use it again.
  void figures4to8_serverLossAndReturn() {
    TestServer s1 = StartTestServer("s1");
    auto s2 = std::make_unique<TestServer>(StartTestServer("s2"));
    const std::vector<Endpoint> servers{s1.server->endpoint(), s2->server->endpoint()};
    std::vector<std::unique_ptr<Client>> clients;
    for (const char* name : {"c1", "c2", "c3"}) clients.push_back(StartClient(servers, 2, name));

    // Figure 4: six pooled connections settle on slots 0..2 of each server.
    QVERIFY2(WaitUntil([&] {
               return PoolsHold(clients, 0, {0, 1, 2}) && PoolsHold(clients, 1, {0, 1, 2});
             }),
             Describe(clients).c_str());

    // Figures 5 and 6: server 2 goes away; every pool refills with server 1's slots 0..5.
    s2->server->Stop();
    QVERIFY2(WaitUntil([&] {
               return PoolsHold(clients, 0, {0, 1, 2, 3, 4, 5});
             }),
             Describe(clients).c_str());
    for (const auto& client : clients) QVERIFY(PooledSlots(*client, 1).empty());
    for (const auto& client : clients)
      QCOMPARE(client->Call(kEchoMethod, "x").status.code(), Code::kOk);

    // Figures 7 and 8: a new server is added; the pools move back to slots 0..2 on both.
    TestServer s3 = StartTestServer("s3");
    for (const auto& client : clients) QCOMPARE(client->AddServer(s3.server->endpoint()), 2u);
    QVERIFY2(WaitUntil([&] {
               return PoolsHold(clients, 0, {0, 1, 2}) && PoolsHold(clients, 2, {0, 1, 2});
             }),
             Describe(clients).c_str());
  }
};

RAILYARD_QTEST_GUILESS_MAIN(BoxcarFiguresTest)
#include "tst_boxcar_figures.moc"
