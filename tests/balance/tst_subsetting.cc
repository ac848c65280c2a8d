// SPDX-License-Identifier: Apache-2.0
// Subsetting reproduces the SRE chapter's figures: random subsets load backends unevenly,
// deterministic subsets evenly.
#include <QTest>
#include <algorithm>
#include <set>
#include <vector>

#include "core/balance/subsetting.h"
#include "tests/support/qtest_main.h"

using namespace railyard::balance;

namespace {

struct Spread {
  double min_over_mean = 0;
  double max_over_mean = 0;
};

// How many clients each backend has, when `clients` clients each take a subset.
std::vector<int> ClientsPerBackend(SubsetMode mode, size_t clients, size_t backends,
                                   size_t subset_size, uint64_t seed) {
  std::vector<int> counts(backends, 0);
  for (size_t client = 0; client < clients; ++client) {
    for (BackendId id : ChooseSubset(mode, client, backends, subset_size, seed)) ++counts.at(id);
  }
  return counts;
}

Spread SpreadOf(const std::vector<int>& counts) {
  double sum = 0;
  for (int count : counts) sum += count;
  const double mean = sum / static_cast<double>(counts.size());
  const auto [min, max] = std::minmax_element(counts.begin(), counts.end());
  return {*min / mean, *max / mean};
}

// The spread of random subsetting averaged over a few seeds, so one lucky draw cannot decide.
Spread AverageRandomSpread(size_t subset_size) {
  constexpr int kSeeds = 8;
  Spread average;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    const Spread spread = SpreadOf(
        ClientsPerBackend(SubsetMode::kRandom, 300, 300, subset_size, static_cast<uint64_t>(seed)));
    average.min_over_mean += spread.min_over_mean / kSeeds;
    average.max_over_mean += spread.max_over_mean / kSeeds;
  }
  return average;
}

}  // namespace

class SubsettingTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void modesParseAndPrint() {
    for (SubsetMode mode : {SubsetMode::kNone, SubsetMode::kRandom, SubsetMode::kDeterministic}) {
      QCOMPARE(ParseSubsetMode(SubsetModeName(mode)), std::optional<SubsetMode>(mode));
    }
    QVERIFY(!ParseSubsetMode("roundish"));
  }

  void randomSubsetsAreDistinctSamplesOfTheRightSize() {
    for (uint64_t seed = 0; seed < 50; ++seed) {
      const std::vector<BackendId> subset = RandomSubset(seed, 40, 7);
      QCOMPARE(subset.size(), size_t{7});
      QCOMPARE(std::set<BackendId>(subset.begin(), subset.end()).size(), size_t{7});
      for (BackendId id : subset) QVERIFY(id < 40);
    }
    QCOMPARE(RandomSubset(3, 5, 9).size(), size_t{5});  // Larger than the fleet: every backend.
    QCOMPARE(ChooseSubset(SubsetMode::kNone, 7, 12, 3, 1).size(), size_t{12});
  }

  void randomNinetyOfThreeHundredSpreadsLikeTheChapter() {
    const Spread spread = AverageRandomSpread(90);
    qInfo(
        "random subsetting, 300 clients, 300 backends, 90 each: %.0f%%..%.0f%% of the mean "
        "(chapter: 63%%..121%%)",
        100 * spread.min_over_mean, 100 * spread.max_over_mean);
    QVERIFY2(spread.min_over_mean > 0.55 && spread.min_over_mean < 0.80,
             qPrintable(QString::number(spread.min_over_mean)));
    QVERIFY2(spread.max_over_mean > 1.12 && spread.max_over_mean < 1.35,
             qPrintable(QString::number(spread.max_over_mean)));
  }

  void randomThirtyOfThreeHundredSpreadsLikeTheChapter() {
    const Spread spread = AverageRandomSpread(30);
    qInfo(
        "random subsetting, 300 clients, 300 backends, 30 each: %.0f%%..%.0f%% of the mean "
        "(chapter: 50%%..150%%)",
        100 * spread.min_over_mean, 100 * spread.max_over_mean);
    QVERIFY2(spread.min_over_mean > 0.30 && spread.min_over_mean < 0.65,
             qPrintable(QString::number(spread.min_over_mean)));
    QVERIFY2(spread.max_over_mean > 1.35 && spread.max_over_mean < 1.80,
             qPrintable(QString::number(spread.max_over_mean)));
  }

  void deterministicGivesEveryBackendTheSameCount() {
    // 300 clients make 100 rounds of 3 subsets of 90 (plus the round's 30 leftovers): each round
    // covers every backend once, so every backend has exactly 100 clients.
    std::vector<int> counts = ClientsPerBackend(SubsetMode::kDeterministic, 300, 300, 90, 1);
    auto [min, max] = std::minmax_element(counts.begin(), counts.end());
    qInfo("deterministic subsetting, 300/300/90: every backend has %d..%d clients", *min, *max);
    QCOMPARE(*min, 100);
    QCOMPARE(*max, 100);
    // The chapter's own example: subsets of 10 divide 300, so every backend has 10 clients.
    counts = ClientsPerBackend(SubsetMode::kDeterministic, 300, 300, 10, 1);
    std::tie(min, max) = std::minmax_element(counts.begin(), counts.end());
    QCOMPARE(*min, 10);
    QCOMPARE(*max, 10);
  }

  void deterministicDiffersByAtMostOneWhenItDoesNotDivide() {
    struct Case {
      size_t clients, backends, subset;
    };
    for (const Case& c : {Case{301, 300, 90}, Case{200, 300, 90}, Case{97, 31, 4}, Case{50, 10, 6},
                          Case{13, 100, 10}}) {
      const std::vector<int> counts =
          ClientsPerBackend(SubsetMode::kDeterministic, c.clients, c.backends, c.subset, 1);
      const auto [min, max] = std::minmax_element(counts.begin(), counts.end());
      QVERIFY2(*max - *min <= 1, qPrintable(QString("%1 clients, %2 backends, subset %3: %4..%5")
                                                .arg(c.clients)
                                                .arg(c.backends)
                                                .arg(c.subset)
                                                .arg(*min)
                                                .arg(*max)));
    }
  }

  void deterministicSubsetsHoldDistinctBackendsAndAtLeastTheSize() {
    for (uint64_t client = 0; client < 100; ++client) {
      const std::vector<BackendId> subset = DeterministicSubset(client, 31, 4);
      QVERIFY(subset.size() >= 4);
      QCOMPARE(std::set<BackendId>(subset.begin(), subset.end()).size(), subset.size());
    }
    // Clients of one round together cover the fleet once; a new round shuffles differently.
    std::set<BackendId> round0;
    for (uint64_t client = 0; client < 3; ++client) {
      for (BackendId id : DeterministicSubset(client, 30, 10)) QVERIFY(round0.insert(id).second);
    }
    QCOMPARE(round0.size(), size_t{30});
    QVERIFY(DeterministicSubset(0, 30, 10) != DeterministicSubset(3, 30, 10));
    // Pure function of its inputs: every process computes the same subsets.
    QCOMPARE(DeterministicSubset(17, 30, 10), DeterministicSubset(17, 30, 10));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(SubsettingTest)
#include "tst_subsetting.moc"
