// SPDX-License-Identifier: Apache-2.0
// Server names are resolved by the client's acquirer, not its constructor: a name that does not
// resolve is reported like a failed connect and retried, and a name that does is connected to.
//
// No test here may reach a real DNS server. Names under the reserved .invalid TLD are not enough:
// with "hosts: files dns", glibc sends them to the configured nameserver (checked with strace).
// A label over 63 octets cannot be encoded in a DNS query at all (RFC 1035 2.3.4), so glibc's
// getaddrinfo rejects it before sending anything, on any machine, with or without a network; it
// sits under .invalid as well so that no resolver could ever answer it. "localhost" comes from
// /etc/hosts.
#include <QTest>
#include <asio.hpp>

#include "tests/rpc/rpc_test_support.h"
#include "tests/support/qtest_main.h"

using namespace railyard::rpc;
using namespace railyard::rpc::testing;
using namespace std::chrono_literals;

namespace {

const std::string kUnresolvable = std::string(70, 'x') + ".invalid";

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

class ResolveTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void unresolvableNameIsReportedAsAFailedConnectAndRetried() {
    // The constructor does no lookup; before this change it resolved here and only logged.
    Client client(FastClientOptions({{kUnresolvable, 7000}}, 2));
    QVERIFY(client.Start().ok());
    // Two failures: the first is reported, and the server is tried again after backing off.
    QVERIFY(WaitUntil([&] { return client.Snapshot().counters.connect_failures >= 2; }));
    const std::string why = client.Snapshot().last_connect_failure;
    QVERIFY2(Contains(why, "cannot resolve " + kUnresolvable), why.c_str());
    // The resolver's own words follow the host and the server address.
    const std::string prefix =
        "cannot resolve " + kUnresolvable + " (server " + kUnresolvable + ":7000): ";
    QVERIFY2(Contains(why, prefix) && why.size() > prefix.size(), why.c_str());
    QCOMPARE(client.Snapshot().entries.size(), size_t{0});
    const CallResult result = client.Call(kEchoMethod, "hello", 1000ms);
    QCOMPARE(result.status.code(), Code::kUnavailable);
  }

  void unresolvableServerDoesNotHoldUpTheOthers() {
    TestServer good = StartTestServer("good");
    Client client(FastClientOptions({{kUnresolvable, 7000}, good.server->endpoint()}, 2));
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(2, 10s));
    for (const PoolEntrySnapshot& entry : client.Snapshot().entries) QCOMPARE(entry.server, 1u);
    QVERIFY(client.Call(kEchoMethod, "hello").status.ok());
    // Added while running: AddServer does not resolve either, and the acquirer reports it.
    const std::string late = std::string(64, 'y') + ".invalid";
    QCOMPARE(client.AddServer({late, 7001}), 2u);
    QVERIFY(WaitUntil([&] { return Contains(client.Snapshot().last_connect_failure, late); }));
    QVERIFY(client.Call(kEchoMethod, "hello").status.ok());
  }

  void nameIsResolvedBeforeTheFirstConnect() {
    // The test server listens on 127.0.0.1 only; skip where "localhost" means ::1 first.
    asio::io_context io;
    asio::error_code ec;
    const auto results = asio::ip::tcp::resolver(io).resolve("localhost", "7000", ec);
    if (ec || results.empty() ||
        results.begin()->endpoint().address() != asio::ip::make_address("127.0.0.1")) {
      QSKIP("\"localhost\" does not resolve to 127.0.0.1 first on this machine");
    }
    TestServer server = StartTestServer("named");
    Client client(FastClientOptions({{"localhost", server.server->port()}}, 2));
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(2, 10s));
    QCOMPARE(client.Snapshot().server_addresses.front(),
             "localhost:" + std::to_string(server.server->port()));
    const CallResult result = client.Call(kEchoMethod, "hello");
    QVERIFY2(result.status.ok(), result.status.message().c_str());
    QCOMPARE(result.payload, std::string("hello"));
    QCOMPARE(client.Snapshot().last_connect_failure, std::string());
  }
};

RAILYARD_QTEST_GUILESS_MAIN(ResolveTest)
#include "tst_resolve.moc"
