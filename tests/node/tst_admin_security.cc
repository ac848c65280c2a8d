// SPDX-License-Identifier: Apache-2.0
// Token guessing is slowed down: after a few wrong tokens a host is locked out for a growing time,
// during which even the right token is refused; a success clears the record. Tokens never reach
// the log, and the admin listener says in its startup line whether it is loopback only.
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <QTest>
#include <sstream>
#include <thread>

#include "core/cluster/admin_client.h"
#include "core/node/admin_service.h"
#include "core/node/auth_throttle.h"
#include "tests/support/qtest_main.h"

using namespace railyard;
using node::AuthThrottle;
using std::chrono::milliseconds;

class AdminSecurityTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void lockoutGrowsAndClears() {
    AuthThrottle::Options options;
    options.free_failures = 3;
    options.first_lockout = milliseconds(100);
    options.max_lockout = milliseconds(350);
    AuthThrottle throttle(options);
    const auto t0 = AuthThrottle::Clock::now();
    for (int i = 0; i < 3; ++i) throttle.RecordFailure("10.0.0.1:1000", t0);
    QCOMPARE(throttle.LockedFor("10.0.0.1:2000", t0), milliseconds(0));
    throttle.RecordFailure("10.0.0.1:3000", t0);  // The 4th: locked, whatever the port.
    QCOMPARE(throttle.LockedFor("10.0.0.1:4000", t0), milliseconds(100));
    QCOMPARE(throttle.LockedFor("10.0.0.2:1000", t0), milliseconds(0));  // Another host.
    throttle.RecordFailure("10.0.0.1:1000", t0);
    QCOMPARE(throttle.LockedFor("10.0.0.1:1000", t0), milliseconds(200));
    throttle.RecordFailure("10.0.0.1:1000", t0);
    QCOMPARE(throttle.LockedFor("10.0.0.1:1000", t0), milliseconds(350));  // Capped.
    QCOMPARE(throttle.LockedFor("10.0.0.1:1000", t0 + milliseconds(400)), milliseconds(0));
    throttle.RecordSuccess("10.0.0.1:9");
    throttle.RecordFailure("10.0.0.1:1000", t0);
    QCOMPARE(throttle.LockedFor("10.0.0.1:1000", t0), milliseconds(0));  // Counting anew.
    QCOMPARE(AuthThrottle::HostOf("[::1]:5555"), std::string("::1"));
    QCOMPARE(AuthThrottle::HostOf("127.0.0.1:80"), std::string("127.0.0.1"));
  }

  void boundedUnderFlood() {
    AuthThrottle::Options options;
    options.max_peers = 100;
    options.free_failures = 0;
    AuthThrottle throttle(options);
    const auto t0 = AuthThrottle::Clock::now();
    for (int i = 0; i < 1000; ++i) {
      throttle.RecordFailure(
          "10.0." + std::to_string(i / 256) + "." + std::to_string(i % 256) + ":1", t0);
    }
    // The newest hosts are still locked out; memory stayed bounded (no way to see it but by
    // not crashing; the newest record must survive the purge).
    QVERIFY(throttle.LockedFor("10.0.3.231:1", t0).count() > 0);
  }

  // Over Boxcar on loopback: wrong tokens, then lockout, then the right token after it expires.
  void realServiceLocksOutGuesser() {
    node::AdminOptions options;
    options.name = "guarded";
    options.viewer_tokens = {"viewer-secret"};
    options.operator_tokens = {"operator-secret"};
    options.throttle.free_failures = 3;
    // Long enough that the two refused attempts below surely come within it on a loaded machine
    // (the test waits out the rest).
    options.throttle.first_lockout = milliseconds(2000);
    node::AdminService service(options,
                               [] {
                                 admin::Telemetry t;
                                 t.set_node("guarded");
                                 return t;
                               },
                               {});
    QVERIFY(service.Start().ok());

    admin::Telemetry telemetry;
    // Three free failures, and the fourth starts the lockout.
    for (int i = 0; i < 4; ++i) {
      cluster::AdminClient guesser(service.endpoint(), "guess-" + std::to_string(i));
      QVERIFY(guesser.Connect(std::chrono::seconds(5)).ok());
      const rpc::Status s = guesser.Telemetry(&telemetry);
      QCOMPARE(s.code(), rpc::Code::kUnauthenticated);
      QVERIFY2(s.message().find("not valid") != std::string::npos, s.message().c_str());
    }
    cluster::AdminClient guesser(service.endpoint(), "guess-5");
    QVERIFY(guesser.Connect(std::chrono::seconds(5)).ok());
    rpc::Status s = guesser.Telemetry(&telemetry);
    QVERIFY2(s.message().find("try again in") != std::string::npos, s.message().c_str());
    // The right token from the same host is refused too while the lockout lasts.
    cluster::AdminClient rightful(service.endpoint(), "viewer-secret");
    QVERIFY(rightful.Connect(std::chrono::seconds(5)).ok());
    s = rightful.Telemetry(&telemetry);
    QVERIFY2(s.message().find("try again in") != std::string::npos, s.message().c_str());
    QTRY_VERIFY_WITH_TIMEOUT(rightful.Telemetry(&telemetry).ok(), 20000);
    QCOMPARE(telemetry.node(), std::string("guarded"));
    service.Stop();
  }

  // Everything the service logs while it starts, refuses a guess, serves a viewer and runs an
  // operator's command: the audit line is there, no token is.
  void tokensNeverReachTheLogAndTheListenerSaysItIsLoopbackOnly() {
    std::ostringstream captured;
    const std::shared_ptr<spdlog::logger> previous = spdlog::default_logger();
    auto capture = std::make_shared<spdlog::logger>(
        "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(captured));
    capture->set_level(spdlog::level::trace);
    spdlog::set_default_logger(capture);
    struct Restore {
      std::shared_ptr<spdlog::logger> logger;
      ~Restore() { spdlog::set_default_logger(logger); }
    } restore{previous};

    const std::string viewer = "viewer-4f1c9a";
    const std::string op = "operator-7d2e0b";
    const std::string guess = "guess-93ab51";
    node::AdminOptions options;
    options.name = "quiet";
    options.viewer_tokens = {viewer};
    options.operator_tokens = {op};
    int drains = 0;
    node::AdminCommands commands;
    commands.drain = [&drains] {
      ++drains;
      return rpc::Status::Ok();
    };
    node::AdminService service(
        options, [] { return admin::Telemetry(); }, commands);
    QVERIFY(service.Start().ok());
    admin::Telemetry telemetry;
    admin::AdminResponse response;
    {
      cluster::AdminClient guesser(service.endpoint(), guess);
      QVERIFY(guesser.Connect(std::chrono::seconds(5)).ok());
      QCOMPARE(guesser.Telemetry(&telemetry).code(), rpc::Code::kUnauthenticated);
      cluster::AdminClient viewing(service.endpoint(), viewer);
      QVERIFY(viewing.Connect(std::chrono::seconds(5)).ok());
      QVERIFY(viewing.Telemetry(&telemetry).ok());
      const rpc::Status refused = viewing.Drain(&response);
      QVERIFY2(refused.message().find("needs an operator token") != std::string::npos,
               refused.message().c_str());
      cluster::AdminClient operating(service.endpoint(), op);
      QVERIFY(operating.Connect(std::chrono::seconds(5)).ok());
      QVERIFY(operating.Drain(&response).ok());
    }
    service.Stop();
    capture->flush();

    const std::string log = captured.str();
    QCOMPARE(drains, 1);
    QVERIFY2(log.find("loopback only") != std::string::npos, log.c_str());
    QVERIFY2(log.find("audit: admin.Drain") != std::string::npos, log.c_str());
    for (const std::string& token : {viewer, op, guess}) {
      QVERIFY2(log.find(token) == std::string::npos, qPrintable(QString::fromStdString(token)));
    }
  }
};

RAILYARD_QTEST_GUILESS_MAIN(AdminSecurityTest)
#include "tst_admin_security.moc"
