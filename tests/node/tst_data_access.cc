// SPDX-License-Identifier: Apache-2.0
// The docservice's authenticated data path, on a real node over loopback: with reader and writer
// tokens configured, a client presents one in its Boxcar hello; without one (or with one it does
// not accept) every call is answered UNAUTHENTICATED saying why, a reader may get but not put,
// and each refusal is counted as its method's error. Data tokens and admin tokens are separate:
// neither opens the other service. repl.Fetch keeps its own replication token. A node without data
// tokens stays open, as before. SIGHUP reloads the token files.
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <memory>
#include <string>

#include "core/cluster/admin_client.h"
#include "core/node/config.h"
#include "core/node/data_access.h"
#include "core/node/node.h"
#include "core/node/token_reload.h"
#include "core/rpc/client.h"
#include "railyard/docservice.pb.h"
#include "railyard/replication.pb.h"
#include "tests/support/qtest_main.h"

using namespace railyard;

namespace {

constexpr char kReader[] = "reader-secret-1";
constexpr char kWriter[] = "writer-secret-1";
constexpr char kOperator[] = "operator-secret-1";

std::unique_ptr<node::Node> OpenNode(const QString& dir, bool with_data_tokens,
                                     node::AuthThrottle::Options throttle = {}) {
  node::NodeOptions options;
  options.data_access.throttle = throttle;
  options.name = "guarded-data";
  options.data_dir = dir.toStdString();
  options.io_threads = 1;
  options.worker_threads = 2;
  options.flight.enabled = false;
  options.admin.operator_tokens = {kOperator};
  if (with_data_tokens) {
    options.data_access.reader_tokens = {kReader};
    options.data_access.writer_tokens = {kWriter};
  }
  std::unique_ptr<node::Node> node;
  if (!node::Node::Open(options, &node).ok()) return nullptr;
  return node;
}

// One call from a fresh client presenting `credentials`.
rpc::CallResult CallWith(const node::Node& node, const std::string& credentials,
                         const std::string& method, const std::string& payload) {
  rpc::ClientOptions options;
  options.servers = {node.endpoint()};
  options.pool_size = 2;
  options.client_name = "tst-data-access";
  options.credentials = credentials;
  rpc::Client client(options);
  if (rpc::Status s = client.Start(); !s.ok()) return {s, {}, 0, std::nullopt};
  (void)client.WaitForPool(options.pool_size, std::chrono::seconds(5));  // Else: the call says.
  return client.Call(method, payload, std::chrono::milliseconds(5000));
}

std::string Put(uint64_t id, const std::string& doc) {
  doc::PutRequest r;
  r.set_id(id);
  r.set_doc(doc);
  return r.SerializeAsString();
}

std::string Get(uint64_t id) {
  doc::GetRequest r;
  r.set_id(id);
  return r.SerializeAsString();
}

uint64_t ErrorsOf(node::Node& node, const std::string& method) {
  const admin::Telemetry telemetry = node.Snapshot();  // Held: the loop reads into it.
  for (const admin::MethodStats& m : telemetry.throughput().methods()) {
    if (m.method() == method) return m.errors();
  }
  return 0;
}

bool Says(const rpc::Status& s, const char* words) {
  return s.code() == rpc::Code::kUnauthenticated && s.message().find(words) != std::string::npos;
}

}  // namespace

class DataAccessTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // The throttle's arithmetic on hellos themselves: a wrong token counts against the hello's
  // host, a right one clears its record, no token is no guess; once locked out, even a writer's
  // token is not looked at.
  void wrongTokensCountAgainstTheirHost() {
    node::DataAccessOptions options;
    options.reader_tokens = {kReader};
    options.writer_tokens = {kWriter};
    options.throttle.free_failures = 2;
    options.throttle.first_lockout = std::chrono::minutes(1);
    node::DataAccess access(std::move(options));
    const auto hello = [&](std::string_view peer, std::string_view token) {
      return access.PrincipalOf({"tst", peer, token});
    };
    QCOMPARE(hello("10.0.0.1:1000", "guess"), std::string(node::DataAccess::kUnknownToken));
    QCOMPARE(hello("10.0.0.1:1001", "guess"), std::string(node::DataAccess::kUnknownToken));
    QCOMPARE(hello("10.0.0.1:1002", kWriter), std::string(node::DataAccess::kWriter));  // Clears.
    QCOMPARE(hello("10.0.0.1:1003", ""), std::string());                                // No guess.
    for (int i = 0; i < 3; ++i) {
      QCOMPARE(hello("10.0.0.1:2000", "guess"), std::string(node::DataAccess::kUnknownToken));
    }
    // The third failure in a row passed the two free ones: the host is locked out, any port.
    QCOMPARE(hello("10.0.0.1:3000", kWriter), std::string(node::DataAccess::kLockedOut));
    QCOMPARE(hello("10.0.0.2:3000", kReader), std::string(node::DataAccess::kReader));
    rpc::CallContext call;
    call.method = "doc.Get";
    call.principal = node::DataAccess::kLockedOut;
    QVERIFY(Says(access.Authorize(call), "too many wrong data tokens"));
  }

  // On a real node over loopback: a host that keeps guessing is locked out, and then its right
  // token is refused too, saying why, and nothing it sends is written. (How many hellos a call
  // makes is the pool's business, so the test guesses until the lockout shows, within bounds.)
  void tokenGuessersAreLockedOut() {
    QTemporaryDir dir;
    node::AuthThrottle::Options throttle;
    throttle.free_failures = 3;
    throttle.first_lockout = std::chrono::minutes(1);  // The test never waits it out.
    std::unique_ptr<node::Node> node = OpenNode(dir.filePath("n"), true, throttle);
    QVERIFY(node);
    rpc::CallResult r = CallWith(*node, kWriter, "doc.Put", Put(1, "before"));
    QVERIFY2(r.status.ok(), r.status.ToString().c_str());
    bool locked_out = false;
    for (int guess = 0; guess < 20 && !locked_out; ++guess) {
      r = CallWith(*node, "guess-" + std::to_string(guess), "doc.Get", Get(1));
      locked_out = Says(r.status, "too many wrong data tokens");
      QVERIFY2(locked_out || Says(r.status, "none of its reader or writer tokens"),
               r.status.ToString().c_str());
    }
    QVERIFY(locked_out);
    r = CallWith(*node, kWriter, "doc.Put", Put(1, "locked out"));
    QVERIFY2(Says(r.status, "too many wrong data tokens"), r.status.ToString().c_str());
    std::string doc;
    QVERIFY(node->store().Get(1, &doc).ok());
    QCOMPARE(doc, std::string("before"));
    node->Shutdown(std::chrono::milliseconds(0));
  }

  void tokensDecideWhoReadsAndWhoWrites() {
    QTemporaryDir dir;
    node::AuthThrottle::Options no_lockout;  // Its wrong tokens are no guessing.
    no_lockout.free_failures = 1000;
    std::unique_ptr<node::Node> node = OpenNode(dir.filePath("n"), true, no_lockout);
    QVERIFY(node);
    rpc::CallResult r = CallWith(*node, "", "doc.Put", Put(1, "anonymous"));
    QVERIFY2(Says(r.status, "none was given"), r.status.ToString().c_str());
    r = CallWith(*node, "guessed", "doc.Get", Get(1));
    QVERIFY2(Says(r.status, "none of its reader or writer tokens"), r.status.ToString().c_str());
    // The admin service's operator token is not a data token.
    r = CallWith(*node, kOperator, "doc.Put", Put(1, "operator"));
    QVERIFY2(Says(r.status, "none of its reader or writer tokens"), r.status.ToString().c_str());
    r = CallWith(*node, kReader, "doc.Put", Put(1, "reader"));
    QVERIFY2(Says(r.status, "needs a writer token"), r.status.ToString().c_str());

    r = CallWith(*node, kWriter, "doc.Put", Put(1, "written"));
    QVERIFY2(r.status.ok(), r.status.ToString().c_str());
    for (const char* token : {kReader, kWriter}) {
      r = CallWith(*node, token, "doc.Get", Get(1));
      QVERIFY2(r.status.ok(), r.status.ToString().c_str());
      doc::GetResponse got;
      QVERIFY(got.ParseFromString(r.payload));
      QCOMPARE(got.doc(), std::string("written"));  // Nothing refused was written.
    }
    // Each refusal is its method's error, as the console and /metrics show them.
    QCOMPARE(ErrorsOf(*node, "doc.Put"), uint64_t{3});
    QCOMPARE(ErrorsOf(*node, "doc.Get"), uint64_t{1});

    // repl.Fetch is left to the replication token: no data token asked for.
    repl::FetchRequest fetch;
    fetch.set_follower("tst");
    r = CallWith(*node, "", "repl.Fetch", fetch.SerializeAsString());
    QVERIFY(!r.status.ok());  // This updater has no replication token: replication is off.
    QVERIFY2(r.status.message().find("replication") != std::string::npos &&
                 r.status.message().find("hello") == std::string::npos,
             r.status.ToString().c_str());
    node->Shutdown(std::chrono::milliseconds(0));
  }

  // A data token opens no admin command, and an admin token no write (above).
  void aWriterTokenIsNoAdminToken() {
    QTemporaryDir dir;
    std::unique_ptr<node::Node> node = OpenNode(dir.filePath("n"), true);
    QVERIFY(node);
    cluster::AdminClient writer(node->admin_endpoint(), kWriter);
    QVERIFY(writer.Connect(std::chrono::seconds(5)).ok());
    admin::AdminResponse response;
    const rpc::Status s = writer.Flush(&response);
    QCOMPARE(s.code(), rpc::Code::kUnauthenticated);
    cluster::AdminClient op(node->admin_endpoint(), kOperator);
    QVERIFY(op.Connect(std::chrono::seconds(5)).ok());
    QVERIFY2(op.Flush(&response).ok(), "the operator token still works");
    node->Shutdown(std::chrono::milliseconds(0));
  }

  // SIGHUP reads the token files again: a client saying hello afterwards needs a new token; an
  // emptied file (a half-written edit) keeps the tokens the node had.
  void sighupReloadsTheDataTokenFiles() {
    QTemporaryDir dir;
    const QString file = dir.filePath("writers");
    auto write = [&](const char* text) {
      QFile f(file);
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write(text);
    };
    write("old-writer\n");
    config::NodeConfig c;
    c.set_data_dir(dir.filePath("data").toStdString());
    c.set_data_writer_token_file(file.toStdString());
    node::NodeOptions options;
    QVERIFY(node::NodeOptionsFrom(c, &options).ok());
    options.flight.enabled = false;
    // The old token's refused hellos count as guesses: a client's acquirers keep probing for
    // better slots, more of them on a loaded machine, and a lockout would refuse the new token
    // too. Lockouts have their own tests above.
    options.data_access.throttle.free_failures = 1000;
    std::unique_ptr<node::Node> node;
    QVERIFY(node::Node::Open(options, &node).ok());
    node::TokenReloader reloader(c, *node, {}, {}, options.data_access);
    QVERIFY(CallWith(*node, "old-writer", "doc.Put", Put(1, "a")).status.ok());
    write("new-writer\n");
    reloader.Reload();
    QVERIFY(CallWith(*node, "new-writer", "doc.Put", Put(1, "b")).status.ok());
    const rpc::CallResult old = CallWith(*node, "old-writer", "doc.Put", Put(1, "c"));
    QVERIFY2(Says(old.status, "none of its reader or writer tokens"),
             old.status.ToString().c_str());
    write("");
    reloader.Reload();
    const rpc::CallResult kept = CallWith(*node, "new-writer", "doc.Put", Put(1, "d"));
    QVERIFY2(kept.status.ok(), kept.status.ToString().c_str());
    node->Shutdown(std::chrono::milliseconds(0));
  }

  // Without data tokens the docservice is open, as before (meant for loopback).
  void withoutDataTokensAnyoneMayWrite() {
    QTemporaryDir dir;
    std::unique_ptr<node::Node> node = OpenNode(dir.filePath("n"), false);
    QVERIFY(node);
    rpc::CallResult r = CallWith(*node, "", "doc.Put", Put(7, "open"));
    QVERIFY2(r.status.ok(), r.status.ToString().c_str());
    r = CallWith(*node, "anything", "doc.Get", Get(7));
    QVERIFY2(r.status.ok(), r.status.ToString().c_str());
    node->Shutdown(std::chrono::milliseconds(0));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(DataAccessTest)
#include "tst_data_access.moc"
