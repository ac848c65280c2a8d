// SPDX-License-Identifier: Apache-2.0
// Server slots under connect/disconnect churn: always the lowest free, never shared, reclaimed at
// once. Real server on 127.0.0.1, raw connections.
#include <QTest>
#include <array>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "core/rpc/slot_table.h"
#include "tests/rpc/rpc_test_support.h"
#include "tests/support/qtest_main.h"

using namespace railyard::rpc;
using namespace railyard::rpc::testing;

class SlotTableTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void tableGivesLowestFreeSlot() {
    SlotTable table;
    QCOMPARE(table.Allocate({}), 0u);
    QCOMPARE(table.Allocate({}), 1u);
    QCOMPARE(table.Allocate({}), 2u);
    table.Release(1);
    table.Release(0);
    QCOMPARE(table.Allocate({}), 0u);
    QCOMPARE(table.Allocate({}), 1u);
    QCOMPARE(table.Allocate({}), 3u);
    QCOMPARE(table.live(), size_t{4});
  }

  void serverSlotsSurviveChurn() {
    TestServer server = StartTestServer("churn");
    const uint16_t port = server.server->port();
    std::mt19937 rng(7);
    std::map<uint32_t, std::unique_ptr<RawConnection>> open;  // slot -> connection
    for (int step = 0; step < 300; ++step) {
      const bool connect = open.empty() || (open.size() < 40 && rng() % 3 != 0);
      if (connect) {
        // The lowest slot none of our connections holds.
        uint32_t expected = 0;
        while (open.count(expected)) ++expected;
        auto conn = std::make_unique<RawConnection>(port);
        const auto welcome = conn->Handshake(1000 + static_cast<uint64_t>(step));
        QVERIFY(welcome);
        QCOMPARE(welcome->slot(), expected);
        QVERIFY2(!open.count(welcome->slot()), "slot handed out twice");
        open.emplace(welcome->slot(), std::move(conn));
      } else {
        auto it = open.begin();
        std::advance(it, rng() % open.size());
        it->second->Close();
        open.erase(it);
        // Reclaimed at once: the server's table shows the slot free as soon as it sees the close.
        QVERIFY(WaitUntil([&] { return server.server->SlotSnapshot().size() == open.size(); }));
      }
      std::set<uint32_t> held;
      for (const SlotInfo& info : server.server->SlotSnapshot()) {
        QVERIFY(held.insert(info.slot).second);
        QVERIFY(open.count(info.slot));
      }
      QCOMPARE(held.size(), open.size());
    }
    open.clear();
    QVERIFY(WaitUntil([&] { return server.server->SlotSnapshot().empty(); }));
  }

  void snapshotDescribesHolders() {
    TestServer server = StartTestServer("snapshot");
    RawConnection conn(server.server->port());
    QVERIFY(conn.Handshake(0xabcdef));
    const std::vector<SlotInfo> slots = server.server->SlotSnapshot();
    QCOMPARE(slots.size(), size_t{1});
    QCOMPARE(slots[0].client_id, uint64_t{0xabcdef});
    QCOMPARE(slots[0].client_name, std::string("raw-test"));
    QVERIFY(slots[0].peer.rfind("127.0.0.1:", 0) == 0);
    QVERIFY(!slots[0].busy);
  }

  // A client stopped while its acquirer is mid-handshake closes that connection too, at once, not
  // when the Client is destroyed: on a real server the probe would hold a slot until then. The
  // peer here accepts and never answers the hello, so the handshake cannot finish on its own.
  void stopClosesAConnectionStillInItsHandshake() {
    asio::io_context io;
    asio::ip::tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
    asio::ip::tcp::socket peer(io);
    bool accepted = false;
    acceptor.async_accept(peer, [&](const asio::error_code& ec) { accepted = !ec; });

    ClientOptions options = FastClientOptions({{"127.0.0.1", acceptor.local_endpoint().port()}}, 1);
    options.connect_timeout = std::chrono::seconds(30);  // Longer than this test may wait.
    Client client(options);
    QVERIFY(client.Start().ok());
    for (int i = 0; i < 500 && !accepted; ++i) io.run_for(std::chrono::milliseconds(10));
    QVERIFY(accepted);

    client.Stop();
    bool closed = false;
    std::array<char, 256> buffer;
    std::function<void(const asio::error_code&, size_t)> on_read = [&](const asio::error_code& ec,
                                                                       size_t) {
      if (ec) {
        closed = true;
        return;
      }
      peer.async_read_some(asio::buffer(buffer), on_read);  // The hello; read on to the close.
    };
    peer.async_read_some(asio::buffer(buffer), on_read);
    io.restart();
    for (int i = 0; i < 300 && !closed; ++i) io.run_for(std::chrono::milliseconds(10));
    QVERIFY2(closed, "the half-open connection outlived Client::Stop()");
  }
};

RAILYARD_QTEST_GUILESS_MAIN(SlotTableTest)
#include "tst_slot_table.moc"
