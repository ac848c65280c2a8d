// SPDX-License-Identifier: Apache-2.0
// TLS on Boxcar listeners and clients, with certificates made at test time: calls and slots work
// as over plain TCP; a peer that speaks the wrong protocol, an untrusted or misnamed server, or a
// client without an acceptable certificate is refused with a clear error and the server stays
// healthy; bad files fail Start() naming the file; timeouts and the connection limit still hold.
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <asio/ssl.hpp>

#include "tests/rpc/rpc_test_support.h"
#include "tests/rpc/tls_test_certs.h"
#include "tests/support/free_port.h"
#include "tests/support/qtest_main.h"

using namespace railyard::rpc;
using namespace railyard::rpc::testing;
using std::chrono::milliseconds;

namespace {

struct ServerLimits {
  milliseconds handshake_timeout{5000};
  milliseconds idle_timeout{60000};
  size_t max_connections = 4096;
};

TlsServerOptions ServerFiles(std::string cert, std::string key, std::string client_ca = {}) {
  TlsServerOptions tls;
  tls.cert_file = std::move(cert);
  tls.key_file = std::move(key);
  tls.client_ca_file = std::move(client_ca);
  return tls;
}

TlsServerOptions ServerTls(const TlsTestFiles& f) {
  return ServerFiles(f.server_cert, f.server_key);
}

TlsClientOptions ClientTls(std::string ca_file) {
  TlsClientOptions tls;
  tls.ca_file = std::move(ca_file);
  return tls;
}

std::unique_ptr<Server> StartServer(std::optional<TlsServerOptions> tls, Status* started,
                                    ServerLimits limits = {}) {
  ServerOptions options;
  options.name = "tls-test";
  options.io_threads = 1;
  options.tls = std::move(tls);
  options.handshake_timeout = limits.handshake_timeout;
  options.idle_timeout = limits.idle_timeout;
  options.max_connections = limits.max_connections;
  auto server = std::make_unique<Server>(options);
  server->RegisterHandler(kEchoMethod, [](const CallContext&, std::string_view payload) {
    return Reply{Status::Ok(), std::string(payload)};
  });
  *started = server->Start();
  return server;
}

ClientOptions TlsClient(const Server& server, size_t pool, std::optional<TlsClientOptions> tls) {
  ClientOptions options = FastClientOptions({server.endpoint()}, pool);
  options.tls = std::move(tls);
  options.max_retries = 0;
  return options;
}

// The first connect failure's words are only logged; a call on an empty pool says only that the
// pool is empty. So the tests that need the reason speak TLS by hand.
class RawTls {
 public:
  RawTls(uint16_t port, const std::string& ca_file)
      : context_(asio::ssl::context::tls_client), stream_(io_, context_) {
    context_.load_verify_file(ca_file);
    // The stream took its verify mode from the context when it was made: set it on both.
    context_.set_verify_mode(asio::ssl::verify_peer);
    stream_.set_verify_mode(asio::ssl::verify_peer);
    stream_.next_layer().connect({asio::ip::make_address("127.0.0.1"), port});
  }

  asio::error_code Handshake() {
    return Run([&](auto done) { stream_.async_handshake(asio::ssl::stream_base::client, done); });
  }

  std::optional<wire::Welcome> Hello() {
    wire::Frame hello;
    hello.mutable_hello()->set_client_id(99);
    hello.mutable_hello()->set_protocol_version(kProtocolVersion);
    const std::string bytes = EncodeFrame(hello);
    if (Run([&](auto done) { asio::async_write(stream_, asio::buffer(bytes), done); }))
      return std::nullopt;
    std::array<unsigned char, kFrameHeaderBytes> header{};
    if (Run([&](auto done) { asio::async_read(stream_, asio::buffer(header), done); }))
      return std::nullopt;
    std::string body(DecodeFrameLength(header.data()), '\0');
    if (Run([&](auto done) { asio::async_read(stream_, asio::buffer(body), done); }))
      return std::nullopt;
    wire::Frame frame;
    if (!frame.ParseFromString(body) || !frame.has_welcome()) return std::nullopt;
    return frame.welcome();
  }

  // True if the server closes the connection within 5 s.
  bool WaitForClose() {
    std::array<char, 64> sink{};
    return static_cast<bool>(
        Run([&](auto done) { stream_.async_read_some(asio::buffer(sink), done); }));
  }

 private:
  // Starts one operation and runs it for at most 5 s; a timeout is reported as timed_out.
  template <typename Start>
  asio::error_code Run(Start start) {
    bool finished = false;
    asio::error_code result;
    start([&](const asio::error_code& ec, auto&&...) {
      result = ec;
      finished = true;
    });
    io_.restart();
    io_.run_for(std::chrono::seconds(5));
    if (!finished) {
      asio::error_code ignored;
      stream_.next_layer().close(ignored);
      io_.restart();
      io_.run_for(std::chrono::seconds(1));
      return asio::error::timed_out;
    }
    return result;
  }

  asio::io_context io_;
  asio::ssl::context context_;
  asio::ssl::stream<asio::ip::tcp::socket> stream_;
};

}  // namespace

class TlsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    files_ = MakeTlsTestFiles(dir_.path().toStdString());
  }

  void callsWorkOverTlsAndSlotsAreHandedOutAsBefore() {
    Status started;
    auto server = StartServer(ServerTls(files_), &started);
    QVERIFY2(started.ok(), started.ToString().c_str());
    // TLS stays on epoll whatever the default engine (io_engine.h).
    QCOMPARE(server->io_engine(), IoEngine::kEpoll);
    Client client(TlsClient(*server, 4, ClientTls(files_.ca_cert)));
    QVERIFY(client.Start().ok());
    QCOMPARE(client.io_engine(), IoEngine::kEpoll);
    QVERIFY(client.WaitForPool(4, milliseconds(10000)));
    // The pool settles on the four lowest slots (a probe racing the first four may hold one).
    QVERIFY(WaitUntil(
        [&] {
          return PooledSlots(client, 0) == std::vector<uint32_t>{0, 1, 2, 3};
        },
        milliseconds(5000)));
    for (int i = 0; i < 50; ++i) {
      const std::string payload = "over tls " + std::to_string(i) + std::string(i * 300, 'x');
      const CallResult result = client.Call(kEchoMethod, payload);
      QVERIFY2(result.status.ok(), result.status.ToString().c_str());
      QCOMPARE(result.payload, payload);
    }
    QCOMPARE(server->counters().requests, uint64_t{50});
    QCOMPARE(server->counters().tls_handshake_failures, uint64_t{0});
    client.Stop();
    QVERIFY(WaitUntil([&] { return server->SlotSnapshot().empty(); }, milliseconds(5000)));
  }

  void aPlainClientIsRefusedAndTheServerStaysHealthy() {
    Status started;
    auto server = StartServer(ServerTls(files_), &started);
    QVERIFY(started.ok());
    {
      Client plain(TlsClient(*server, 2, std::nullopt));
      QVERIFY(plain.Start().ok());
      QVERIFY(!plain.WaitForPool(1, milliseconds(500)));
      const CallResult result = plain.Call(kEchoMethod, "hello?");
      QCOMPARE(result.status.code(), Code::kUnavailable);
      QVERIFY(plain.Snapshot().counters.connect_failures > 0);
      const std::string why = plain.Snapshot().last_connect_failure;
      QVERIFY2(why.find("does the server require TLS?") != std::string::npos, why.c_str());
      plain.Stop();
    }
    // A raw plain peer hears nothing it could mistake for a welcome, and is closed.
    RawConnection raw(server->port());
    QVERIFY(!raw.Handshake(7));
    QVERIFY(server->counters().tls_handshake_failures > 0);
    // No slot was taken by any of them, and a TLS client still gets the lowest one.
    QVERIFY(server->SlotSnapshot().empty());
    Client good(TlsClient(*server, 1, ClientTls(files_.ca_cert)));
    QVERIFY(good.Start().ok());
    QVERIFY(good.WaitForPool(1, milliseconds(5000)));
    // Its acquirers open connections side by side at start, so the first one pooled may hold
    // slot 1 while another holds 0; the pool then swaps to the lower slot.
    QVERIFY(WaitUntil([&] { return PooledSlots(good, 0) == std::vector<uint32_t>{0}; },
                      milliseconds(5000)));
    QCOMPARE(good.Call(kEchoMethod, "still here").payload, std::string("still here"));
  }

  void aTlsClientAgainstAPlainServerFailsClearly() {
    Status started;
    auto server = StartServer(std::nullopt, &started);
    QVERIFY(started.ok());
    Client client(TlsClient(*server, 1, ClientTls(files_.ca_cert)));
    QVERIFY(client.Start().ok());
    QVERIFY(!client.WaitForPool(1, milliseconds(500)));
    QVERIFY(client.Snapshot().counters.connect_failures > 0);
    const std::string why = client.Snapshot().last_connect_failure;
    QVERIFY2(why.find("TLS handshake with " + server->endpoint().ToString() + " failed") !=
                 std::string::npos,
             why.c_str());
    QVERIFY(server->SlotSnapshot().empty());
    QVERIFY(WaitUntil([&] { return server->counters().protocol_errors > 0; }, milliseconds(5000)));
  }

  void anUntrustedServerCertificateIsRefused() {
    Status started;
    auto server =
        StartServer(ServerFiles(files_.rogue_server_cert, files_.rogue_server_key), &started);
    QVERIFY(started.ok());
    Client client(TlsClient(*server, 1, ClientTls(files_.ca_cert)));
    QVERIFY(client.Start().ok());
    QVERIFY(!client.WaitForPool(1, milliseconds(500)));
    const std::string why = client.Snapshot().last_connect_failure;
    QVERIFY2(why.find("certificate verify failed") != std::string::npos, why.c_str());
    RawTls raw(server->port(), files_.ca_cert);
    const asio::error_code ec = raw.Handshake();
    QVERIFY(ec);
    QVERIFY2(ec.message().find("certificate verify failed") != std::string::npos,
             ec.message().c_str());
    QVERIFY(server->SlotSnapshot().empty());
  }

  void theServerNameMustMatchTheCertificate() {
    Status started;
    auto server = StartServer(ServerTls(files_), &started);
    QVERIFY(started.ok());
    TlsClientOptions wrong = ClientTls(files_.ca_cert);
    wrong.server_name = "db.example.com";
    Client misnamed(TlsClient(*server, 1, wrong));
    QVERIFY(misnamed.Start().ok());
    QVERIFY(!misnamed.WaitForPool(1, milliseconds(500)));
    const std::string why = misnamed.Snapshot().last_connect_failure;
    QVERIFY2(why.find("hostname mismatch") != std::string::npos, why.c_str());
    // The certificate names localhost as well as 127.0.0.1.
    TlsClientOptions by_name = ClientTls(files_.ca_cert);
    by_name.server_name = "localhost";
    Client named(TlsClient(*server, 1, by_name));
    QVERIFY(named.Start().ok());
    QVERIFY(named.WaitForPool(1, milliseconds(5000)));
    QCOMPARE(named.Call(kEchoMethod, "named").payload, std::string("named"));
  }

  void mutualTlsRefusesClientsWithoutAnAcceptableCertificate() {
    TlsServerOptions tls = ServerTls(files_);
    tls.client_ca_file = files_.ca_cert;
    Status started;
    auto server = StartServer(tls, &started);
    QVERIFY(started.ok());

    Client anonymous(TlsClient(*server, 1, ClientTls(files_.ca_cert)));
    QVERIFY(anonymous.Start().ok());
    TlsClientOptions stranger_tls = ClientTls(files_.ca_cert);
    stranger_tls.cert_file = files_.stranger_client_cert;
    stranger_tls.key_file = files_.stranger_client_key;
    Client stranger(TlsClient(*server, 1, stranger_tls));
    QVERIFY(stranger.Start().ok());
    QVERIFY(!anonymous.WaitForPool(1, milliseconds(500)));
    QVERIFY(!stranger.WaitForPool(1, milliseconds(100)));
    QVERIFY(WaitUntil([&] { return server->counters().tls_handshake_failures >= 2; },
                      milliseconds(5000)));
    QVERIFY(server->SlotSnapshot().empty());

    TlsClientOptions member_tls = ClientTls(files_.ca_cert);
    member_tls.cert_file = files_.client_cert;
    member_tls.key_file = files_.client_key;
    Client member(TlsClient(*server, 2, member_tls));
    QVERIFY(member.Start().ok());
    QVERIFY(member.WaitForPool(2, milliseconds(5000)));
    QCOMPARE(member.Call(kEchoMethod, "with a certificate").payload,
             std::string("with a certificate"));
  }

  // WaitForPoolUnlessRefused ends as soon as every server refused the client as it is set up
  // (railyardctl load then says why at once), and waits as long as one may yet come up.
  void aWaitForThePoolEndsWhenEveryServerRefusesTheSetup() {
    constexpr milliseconds kLong(30000);
    const auto ends_early = [&](Client& client) {
      const auto start = std::chrono::steady_clock::now();
      const bool pooled = client.WaitForPoolUnlessRefused(1, kLong);
      return !pooled && std::chrono::steady_clock::now() - start < kLong;
    };
    Status started;
    auto tls_server = StartServer(ServerTls(files_), &started);
    QVERIFY(started.ok());
    auto plain_server = StartServer(std::nullopt, &started);
    QVERIFY(started.ok());
    TlsServerOptions mutual = ServerTls(files_);
    mutual.client_ca_file = files_.ca_cert;
    auto mutual_server = StartServer(mutual, &started);
    QVERIFY(started.ok());
    auto rogue_server =
        StartServer(ServerFiles(files_.rogue_server_cert, files_.rogue_server_key), &started);
    QVERIFY(started.ok());

    Client plain(TlsClient(*tls_server, 1, std::nullopt));               // Closed at its hello.
    Client tls(TlsClient(*plain_server, 1, ClientTls(files_.ca_cert)));  // No handshake.
    Client anonymous(TlsClient(*mutual_server, 1, ClientTls(files_.ca_cert)));  // An alert.
    Client trusting(TlsClient(*rogue_server, 1, ClientTls(files_.ca_cert)));    // Not trusted.
    for (Client* client : {&plain, &tls, &anonymous, &trusting}) {
      QVERIFY(client->Start().ok());
      QVERIFY2(ends_early(*client), client->Snapshot().last_connect_failure.c_str());
    }
    QVERIFY(anonymous.Snapshot().last_connect_failure.find("certificate required") !=
            std::string::npos);

    // A server that is not up yet keeps the wait going, also beside one that refuses; it ends
    // when that server comes up.
    const Endpoint later{"127.0.0.1", railyard::testing::FreePort()};
    ClientOptions both = TlsClient(*tls_server, 1, std::nullopt);
    both.servers.push_back(later);
    Client waiting(both);
    QVERIFY(waiting.Start().ok());
    const auto start = std::chrono::steady_clock::now();
    QVERIFY(!waiting.WaitForPoolUnlessRefused(1, milliseconds(300)));
    QVERIFY(std::chrono::steady_clock::now() - start >= milliseconds(300));
    ServerOptions options;
    options.name = "later";
    options.port = later.port;
    options.io_threads = 1;
    Server server(options);
    QVERIFY(server.Start().ok());
    QVERIFY(waiting.WaitForPoolUnlessRefused(1, kLong));
  }

  void optionalClientCertificatesLetAnonymousClientsIn() {
    TlsServerOptions tls = ServerTls(files_);
    tls.client_ca_file = files_.ca_cert;
    tls.require_client_cert = false;
    Status started;
    auto server = StartServer(tls, &started);
    QVERIFY(started.ok());
    Client anonymous(TlsClient(*server, 1, ClientTls(files_.ca_cert)));
    QVERIFY(anonymous.Start().ok());
    QVERIFY(anonymous.WaitForPool(1, milliseconds(5000)));
    QCOMPARE(anonymous.Call(kEchoMethod, "anonymous").payload, std::string("anonymous"));
  }

  void unusableFilesFailStartNamingTheFile() {
    const std::string missing = dir_.filePath("missing.pem").toStdString();
    const std::string garbage = dir_.filePath("garbage.pem").toStdString();
    {
      QFile f(QString::fromStdString(garbage));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("this is not a certificate\n");
    }
    struct Case {
      TlsServerOptions tls;
      std::string expected;
    };
    const std::vector<Case> cases = {
        {ServerFiles(missing, files_.server_key), "cannot read TLS certificate file " + missing},
        {ServerFiles(files_.server_cert, missing), "cannot read TLS private key file " + missing},
        {ServerFiles(garbage, files_.server_key),
         "TLS certificate file " + garbage + " is not usable"},
        {ServerFiles(files_.server_cert, garbage),
         "TLS private key file " + garbage + " is not usable"},
        {ServerFiles(files_.server_cert, files_.client_key),
         "TLS private key " + files_.client_key + " does not match the certificate in " +
             files_.server_cert},
        {ServerFiles(files_.server_cert, files_.server_key, missing),
         "cannot read TLS client CA file " + missing},
    };
    for (const Case& c : cases) {
      Status started;
      auto server = StartServer(c.tls, &started);
      QCOMPARE(started.code(), Code::kInvalidArgument);
      QVERIFY2(started.message().find(c.expected) != std::string::npos, started.message().c_str());
    }
    // The client side names its files too.
    Status started;
    auto server = StartServer(ServerTls(files_), &started);
    QVERIFY(started.ok());
    TlsClientOptions no_ca = ClientTls(missing);
    Client a(TlsClient(*server, 1, no_ca));
    QVERIFY(a.Start().message().find("cannot read TLS CA file " + missing) != std::string::npos);
    TlsClientOptions mismatched = ClientTls(files_.ca_cert);
    mismatched.cert_file = files_.client_cert;
    mismatched.key_file = files_.server_key;
    Client b(TlsClient(*server, 1, mismatched));
    const Status b_started = b.Start();
    QVERIFY2(b_started.message().find("does not match the certificate in " + files_.client_cert) !=
                 std::string::npos,
             b_started.message().c_str());
    TlsClientOptions half = ClientTls(files_.ca_cert);
    half.cert_file = files_.client_cert;
    Client c(TlsClient(*server, 1, half));
    QCOMPARE(c.Start().code(), Code::kInvalidArgument);
  }

  void reloadTlsServesNewFilesToNewConnectionsAndKeepsOldOnesOnError() {
    // The server's files at fixed paths, as an operator keeps them; first the rogue (untrusted)
    // certificate, then the CA-signed one copied over it.
    const QString cert = dir_.filePath("live-cert.pem"), key = dir_.filePath("live-key.pem");
    auto install = [](const std::string& from, const QString& to) {
      QFile::remove(to);
      return QFile::copy(QString::fromStdString(from), to);
    };
    QVERIFY(install(files_.rogue_server_cert, cert) && install(files_.rogue_server_key, key));
    Status started;
    auto server = StartServer(ServerFiles(cert.toStdString(), key.toStdString()), &started);
    QVERIFY2(started.ok(), started.ToString().c_str());
    QVERIFY(RawTls(server->port(), files_.ca_cert).Handshake());  // Untrusted: refused.

    QVERIFY(install(files_.server_cert, cert) && install(files_.server_key, key));
    QVERIFY(RawTls(server->port(), files_.ca_cert).Handshake());  // Not read again yet.
    QVERIFY(server->ReloadTls().ok());
    RawTls after(server->port(), files_.ca_cert);
    QVERIFY(!after.Handshake());  // New connections get the new certificate.
    QVERIFY(after.Hello().has_value());
    Client client(TlsClient(*server, 1, ClientTls(files_.ca_cert)));
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(1, milliseconds(10000)));
    QVERIFY(client.Call(kEchoMethod, "after the reload").status.ok());

    // A key that does not fit is refused, naming the file; the server keeps serving what it had.
    QVERIFY(install(files_.client_key, key));
    const Status refused = server->ReloadTls();
    QCOMPARE(refused.code(), Code::kInvalidArgument);
    QVERIFY2(refused.message().find("does not match") != std::string::npos &&
                 refused.message().find("keeping the loaded one") != std::string::npos,
             refused.message().c_str());
    QVERIFY(!RawTls(server->port(), files_.ca_cert).Handshake());
    QVERIFY(client.Call(kEchoMethod, "still served").status.ok());

    // A plain listener has nothing to reload.
    auto plain = StartServer(std::nullopt, &started);
    QCOMPARE(plain->ReloadTls().code(), Code::kFailedPrecondition);
  }

  void aSilentPeerIsCutWithinTheHandshakeTimeoutWithoutASlot() {
    Status started;
    // Short, but long enough for the TLS handshake below to finish within it on a loaded machine.
    auto server =
        StartServer(ServerTls(files_), &started, {milliseconds(2000), milliseconds(60000), 4096});
    QVERIFY(started.ok());
    RawConnection silent(server->port());  // Never sends a ClientHello.
    QVERIFY(server->SlotSnapshot().empty());
    QVERIFY(silent.WaitForClose(milliseconds(20000)));
    QCOMPARE(server->counters().timeouts, uint64_t{1});
    // One that finishes TLS but never says hello is cut too: TLS counts within the timeout.
    RawTls mute(server->port(), files_.ca_cert);
    QVERIFY(!mute.Handshake());
    QVERIFY(mute.WaitForClose());
    QCOMPARE(server->counters().timeouts, uint64_t{2});
    QVERIFY(server->SlotSnapshot().empty());
  }

  void anIdleTlsConnectionIsCutAndItsSlotFreed() {
    Status started;
    // Idle for 1 s: long enough that the slot is surely still held when looked at below.
    auto server =
        StartServer(ServerTls(files_), &started, {milliseconds(5000), milliseconds(1000), 4096});
    QVERIFY(started.ok());
    RawTls idle(server->port(), files_.ca_cert);
    QVERIFY(!idle.Handshake());
    const std::optional<wire::Welcome> welcome = idle.Hello();
    QVERIFY(welcome);
    QCOMPARE(welcome->slot(), uint32_t{0});
    QCOMPARE(server->SlotSnapshot().size(), size_t{1});
    QVERIFY(idle.WaitForClose());
    QVERIFY(WaitUntil([&] { return server->SlotSnapshot().empty(); }, milliseconds(5000)));
    QCOMPARE(server->counters().timeouts, uint64_t{1});
  }

  void connectionsPastTheLimitAreRefusedWithAReasonOverTls() {
    Status started;
    auto server =
        StartServer(ServerTls(files_), &started, {milliseconds(5000), milliseconds(60000), 1});
    QVERIFY(started.ok());
    RawTls first(server->port(), files_.ca_cert);
    QVERIFY(!first.Handshake());
    QVERIFY(first.Hello());
    RawTls second(server->port(), files_.ca_cert);
    QVERIFY(!second.Handshake());
    const std::optional<wire::Welcome> refused = second.Hello();
    QVERIFY(refused);
    QVERIFY2(refused->refusal().find("connection limit (1)") != std::string::npos,
             refused->refusal().c_str());
    QVERIFY(second.WaitForClose());
    QCOMPARE(server->counters().connections_refused, uint64_t{1});
  }

 private:
  QTemporaryDir dir_;
  TlsTestFiles files_;
};

RAILYARD_QTEST_GUILESS_MAIN(TlsTest)
#include "tst_tls.moc"
