// SPDX-License-Identifier: Apache-2.0
// MethodStats' cumulative totals, which /metrics exposes as Prometheus counters and histogram
// buckets: each answer is counted under its status code and once in the bucket whose bound is
// the first not below its latency (a latency equal to a bound belongs to that bound's bucket).
#include <QTest>

#include "core/base/method_stats.h"
#include "tests/support/qtest_main.h"

using namespace railyard::base;
using std::chrono::microseconds;

class MethodStatsTotalsTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void answersAreCountedByCodeAndLatencyBucket() {
    MethodStats stats;
    stats.Record("doc.Get", microseconds(100), false, StatusCode::kOk);  // Exactly 0.0001 s.
    stats.Record("doc.Get", microseconds(101), false, StatusCode::kNotFound);
    stats.Record("doc.Get", std::chrono::seconds(30), true, StatusCode::kInternal);
    stats.Record("doc.Put", microseconds(-5), false);
    const std::vector<MethodStats::Totals> totals = stats.AllTotals();
    QCOMPARE(totals.size(), size_t{2});
    const MethodStats::Totals& get = totals[0];
    QCOMPARE(get.method, std::string("doc.Get"));
    QCOMPARE(get.requests, uint64_t{3});
    QCOMPARE(get.errors, uint64_t{1});
    QCOMPARE(get.codes.at(StatusCode::kOk), uint64_t{1});
    QCOMPARE(get.codes.at(StatusCode::kNotFound), uint64_t{1});
    QCOMPARE(get.codes.at(StatusCode::kInternal), uint64_t{1});
    QCOMPARE(MethodStats::kLatencyBoundsSeconds[1], 0.0001);
    QCOMPARE(get.buckets[1], uint64_t{1});      // 100 us: le 0.0001.
    QCOMPARE(get.buckets[2], uint64_t{1});      // 101 us: le 0.00025.
    QCOMPARE(get.buckets.back(), uint64_t{1});  // 30 s: +Inf.
    QVERIFY(qAbs(get.latency_sum_seconds - 30.000201) < 1e-9);
    const MethodStats::Totals& put = totals[1];
    QCOMPARE(put.buckets[0], uint64_t{1});  // A negative latency counts as 0.
    QCOMPARE(put.latency_sum_seconds, 0.0);
    QCOMPARE(put.codes.at(StatusCode::kOk), uint64_t{1});
  }
};

RAILYARD_QTEST_GUILESS_MAIN(MethodStatsTotalsTest)
#include "tst_method_stats_totals.moc"
