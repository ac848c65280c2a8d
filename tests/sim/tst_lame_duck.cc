// SPDX-License-Identifier: Apache-2.0
// The simulator's lame duck follows the runtime's (and the SRE chapter's): attempts that reach a
// draining backend before their clients heard of it are served, not refused, so a drain costs no
// retry.
#include <QTest>

#include "core/sim/scenario.h"
#include "core/sim/simulator.h"
#include "tests/support/qtest_main.h"

using namespace railyard;

class LameDuckTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void attemptsRacingTheNoticeAreServed() {
    sim::Scenario s;
    sim::ParseError parse_error;
    // A long round trip and a high rate put many attempts in flight while the notice travels.
    QVERIFY2(sim::ParseScenario("duration 3s\n"
                                "network 5ms\n"
                                "clients 8 rate 2000/s pool 16\n"
                                "backends 3 service exp 1ms capacity 16\n"
                                "at 1s backend 1 lame-duck\n",
                                &s, &parse_error),
             parse_error.ToString().c_str());
    sim::SimResult result;
    std::string error;
    QVERIFY2(sim::Simulate(s, sim::SimOptions{}, &result, &error), error.c_str());
    QVERIFY(result.requests > 10000);
    QCOMPARE(result.errors, uint64_t{0});
    QCOMPARE(result.retries, uint64_t{0});  // Refused attempts would each have been retried.
  }
};

RAILYARD_QTEST_GUILESS_MAIN(LameDuckTest)
#include "tst_lame_duck.moc"
