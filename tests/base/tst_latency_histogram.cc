// SPDX-License-Identifier: Apache-2.0
// base::LatencyHistogram: every percentile it reports is within 2% of the exact one.
#include <QTest>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "core/base/latency_histogram.h"
#include "tests/support/qtest_main.h"

using railyard::base::LatencyHistogram;
using std::chrono::nanoseconds;

namespace {

constexpr double kBound = 0.02;  // The relative error the histogram promises to stay within.

// The nearest-rank percentile of sorted values: the smallest value with at least q of the sample
// at or below it (what the histogram approximates).
int64_t ExactPercentile(const std::vector<int64_t>& sorted, double q) {
  const auto rank =
      std::max<size_t>(1, static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size()))));
  return sorted[rank - 1];
}

struct Sample {
  const char* name;
  std::function<double(std::mt19937_64&)> draw_ns;
};

}  // namespace

class LatencyHistogramTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void percentilesAreWithinTwoPercentOfExact_data() {
    QTest::addColumn<int>("which");
    QTest::newRow("uniform 1us-10ms") << 0;
    QTest::newRow("exponential mean 200us") << 1;
    QTest::newRow("lognormal median 1ms") << 2;
    QTest::newRow("pareto from 50us") << 3;
    QTest::newRow("two modes 80us and 40ms") << 4;
    QTest::newRow("small: 0-5000ns") << 5;
  }

  void percentilesAreWithinTwoPercentOfExact() {
    QFETCH(int, which);
    // The draws are in nanoseconds; std:: distributions are fine here, only the bound matters.
    const Sample samples[] = {
        {"uniform",
         [](std::mt19937_64& g) { return std::uniform_real_distribution<double>(1e3, 1e7)(g); }},
        {"exponential",
         [](std::mt19937_64& g) { return std::exponential_distribution<double>(1 / 2e5)(g); }},
        {"lognormal",
         [](std::mt19937_64& g) {
           return std::lognormal_distribution<double>(std::log(1e6), 1.2)(g);
         }},
        {"pareto",
         [](std::mt19937_64& g) {
           return 5e4 / std::pow(1 - std::uniform_real_distribution<double>(0, 1)(g), 1 / 1.5);
         }},
        {"bimodal",
         [](std::mt19937_64& g) {
           return std::bernoulli_distribution(0.95)(g)
                      ? std::normal_distribution<double>(8e4, 1e4)(g)
                      : std::normal_distribution<double>(4e7, 5e6)(g);
         }},
        {"small",
         [](std::mt19937_64& g) { return std::uniform_real_distribution<double>(0, 5000)(g); }},
    };
    std::mt19937_64 gen(20240601u + static_cast<uint64_t>(which));
    constexpr size_t kValues = 300'000;
    std::vector<int64_t> values;
    values.reserve(kValues);
    // Two histograms merged, as telemetry merges its windows.
    LatencyHistogram first, second;
    for (size_t i = 0; i < kValues; ++i) {
      const auto ns = std::max<int64_t>(0, std::llround(samples[which].draw_ns(gen)));
      values.push_back(ns);
      (i % 3 == 0 ? first : second).Add(nanoseconds(ns));
    }
    first.Merge(second);
    std::sort(values.begin(), values.end());
    QCOMPARE(first.count(), uint64_t{kValues});
    QCOMPARE(first.max().count(), values.back());
    QCOMPARE(first.max_us(), static_cast<double>(values.back()) / 1e3);

    double worst = 0;
    for (const double q : {0.5, 0.9, 0.99, 0.999, 1.0}) {
      const int64_t exact = ExactPercentile(values, q);
      const int64_t reported = first.Percentile(q).count();
      const double error = exact == 0
                               ? static_cast<double>(reported)
                               : static_cast<double>(reported - exact) / static_cast<double>(exact);
      worst = std::max(worst, std::abs(error));
      QVERIFY2(std::abs(error) <= kBound,
               qPrintable(QString("%1 q=%2: reported %3 ns, exact %4 ns (%5%)")
                              .arg(samples[which].name)
                              .arg(q)
                              .arg(reported)
                              .arg(exact)
                              .arg(100 * error, 0, 'f', 2)));
      // In microseconds, as telemetry reports it, the same figure.
      QCOMPARE(first.PercentileUs(q), static_cast<double>(reported) / 1e3);
    }
    qInfo("%s: worst relative error %.3f%%", samples[which].name, 100 * worst);
  }

  void emptyAndEdgeCases() {
    LatencyHistogram h;
    QCOMPARE(h.Percentile(0.5).count(), int64_t{0});
    QCOMPARE(h.PercentileUs(0.99), 0.0);
    QCOMPARE(h.count(), uint64_t{0});
    h.Add(nanoseconds(-5));  // Counts as 0.
    QCOMPARE(h.Percentile(1.0).count(), int64_t{0});
    h.Add(std::chrono::hours(1));
    QCOMPARE(h.Percentile(1.0), nanoseconds(std::chrono::hours(1)));  // Exact at the maximum.
    QCOMPARE(h.Percentile(0.0).count(), int64_t{0});  // The lowest rank is the first value.
    LatencyHistogram empty;
    empty.Merge(h);
    QCOMPARE(empty.count(), uint64_t{2});
    QCOMPARE(empty.max(), h.max());
  }
};

RAILYARD_QTEST_GUILESS_MAIN(LatencyHistogramTest)
#include "tst_latency_histogram.moc"
