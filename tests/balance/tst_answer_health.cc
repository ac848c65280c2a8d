// SPDX-License-Identifier: Apache-2.0
// The sinkhole rule on its own: which answers count, and when a connection is judged sick.
#include <QTest>

#include "core/balance/answer_health.h"
#include "tests/support/qtest_main.h"

using railyard::balance::AnswerHealth;
using railyard::balance::Result;

class TestAnswerHealth : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void threeErrorsInARowMarkTheConnectionSick() {
    AnswerHealth health;
    QCOMPARE(health.limit(), 3u);
    QVERIFY(!health.Record(Result::kError));
    QVERIFY(!health.Record(Result::kError));
    QVERIFY(health.Record(Result::kError));
    QVERIFY(health.Record(Result::kError));  // Stays sick until a success.
    QVERIFY(!health.Record(Result::kSuccess));
    QCOMPARE(health.consecutive_errors(), 0u);
  }

  void aSuccessBetweenErrorsKeepsTheConnection() {
    // A server failing half its answers in strict alternation never trips the rule.
    AnswerHealth health;
    for (int i = 0; i < 100; ++i) {
      QVERIFY(!health.Record(Result::kError));
      QVERIFY(!health.Record(Result::kSuccess));
    }
  }

  void applicationErrorsRejectionsAndTimeoutsDoNotCount() {
    AnswerHealth health;
    for (int i = 0; i < 10; ++i) {
      QVERIFY(!health.Record(Result::kIgnored));
      QVERIFY(!health.Record(Result::kRejected));
      QVERIFY(!health.Record(Result::kTimeout));
    }
    QCOMPARE(health.consecutive_errors(), 0u);
    // Nor do they clear a count under way.
    QVERIFY(!health.Record(Result::kError));
    QVERIFY(!health.Record(Result::kIgnored));
    QVERIFY(!health.Record(Result::kError));
    QVERIFY(health.Record(Result::kError));
  }

  void limitIsConfigurableAndZeroNeverTrips() {
    AnswerHealth one(1);
    QVERIFY(one.Record(Result::kError));
    AnswerHealth never(0);
    for (int i = 0; i < 10; ++i) QVERIFY(!never.Record(Result::kError));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(TestAnswerHealth)
#include "tst_answer_health.moc"
