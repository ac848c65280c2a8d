// SPDX-License-Identifier: Apache-2.0
// Each balancing policy's logic, driven directly through Pick and Finish in virtual time.
#include <QTest>
#include <chrono>
#include <memory>
#include <vector>

#include "core/balance/aimd_limiter.h"
#include "core/balance/policy.h"
#include "core/balance/retry_budget.h"
#include "tests/balance/policy_driver.h"
#include "tests/support/qtest_main.h"

using namespace railyard::balance;
using namespace railyard::balance::testing;
using railyard::base::Rng;
using namespace std::chrono_literals;

namespace {

constexpr PolicyKind kAllKinds[] = {PolicyKind::kLowestSlot, PolicyKind::kRoundRobin,
                                    PolicyKind::kLeastLoaded, PolicyKind::kWeighted,
                                    PolicyKind::kAdaptive};

std::unique_ptr<Policy> Make(PolicyKind kind, uint64_t seed = 1) {
  PolicyOptions options;
  options.kind = kind;
  options.seed = seed;
  return MakePolicy(options);
}

std::vector<Candidate> Candidates(uint32_t count) {
  std::vector<Candidate> candidates;
  for (BackendId id = 0; id < count; ++id) candidates.push_back({id, id, 1});
  return candidates;
}

Answer Success(Duration latency) { return {Result::kSuccess, latency, std::nullopt}; }

// The share of picks the last of `backends` gets when half its requests fail and the others
// never do, averaged over seeds after the policy has learned.
double FlakyShare(uint32_t backends, double success_exponent) {
  const BackendId flaky = backends - 1;
  double total = 0;
  constexpr int kSeeds = 4;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    PolicyOptions options;
    options.kind = PolicyKind::kAdaptive;
    options.seed = static_cast<uint64_t>(seed);
    options.success_exponent = success_exponent;
    auto policy = MakePolicy(options);
    PolicyDriver driver(*policy, backends, 8, static_cast<uint64_t>(seed) * 7);
    auto behaviour = [flaky](BackendId backend, Time, Rng& rng) {
      if (backend == flaky && rng.Uniform() < 0.5) {
        return Answer{Result::kError, 2ms, std::nullopt};
      }
      return Success(5ms);
    };
    driver.Run(10s, behaviour);  // Learn.
    total += driver.Run(20s, behaviour).Share(flaky);
  }
  return total / kSeeds;
}

}  // namespace

class PoliciesTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void kindsParseAndMake() {
    for (PolicyKind kind : kAllKinds) {
      QCOMPARE(ParsePolicyKind(PolicyKindName(kind)), std::optional<PolicyKind>(kind));
      auto policy = Make(kind);
      QVERIFY(policy);
      QCOMPARE(policy->name(), PolicyKindName(kind));
      QCOMPARE(QString::fromStdString(policy->Explain(Time{0}).policy),
               QString::fromUtf8(PolicyKindName(kind).data(),
                                 static_cast<qsizetype>(PolicyKindName(kind).size())));
    }
    QVERIFY(!ParsePolicyKind("random"));
    QVERIFY(!ParsePolicyKind(""));
  }

  void lowestSlotTakesTheBestSlotAndSkipsAvoided() {
    auto policy = Make(PolicyKind::kLowestSlot);
    const std::vector<Candidate> candidates{{4, 2, 1}, {7, 5, 3}, {9, 0, 1}};
    QCOMPARE(policy->Pick(candidates, {}, Time{0}), std::optional<size_t>(2));
    const BackendId avoid[] = {9};
    QCOMPARE(policy->Pick(candidates, avoid, Time{0}), std::optional<size_t>(0));
    // Only avoided backends left: a retry on one beats no retry.
    const BackendId avoid_all[] = {4, 7, 9};
    QCOMPARE(policy->Pick(candidates, avoid_all, Time{0}), std::optional<size_t>(2));
    QVERIFY(!policy->Pick({}, {}, Time{0}));
  }

  void roundRobinRotatesOverBackends() {
    auto policy = Make(PolicyKind::kRoundRobin);
    const std::vector<Candidate> all = Candidates(3);
    std::vector<BackendId> order;
    for (int i = 0; i < 7; ++i) {
      const auto index = policy->Pick(all, {}, Time{i});
      QVERIFY(index);
      order.push_back(all[*index].backend);
      policy->Finish({all[*index].backend, Result::kSuccess, 1ms, std::nullopt, Time{i}});
    }
    QCOMPARE(order, (std::vector<BackendId>{0, 1, 2, 0, 1, 2, 0}));
    // The rotation follows backends, not positions: with backend 2 busy it goes on to 0 then 2.
    const std::vector<Candidate> without_two{{0, 0, 1}, {1, 1, 1}};
    const auto next = policy->Pick(without_two, {}, Time{8});  // After 0 comes 1.
    QCOMPARE(without_two[*next].backend, BackendId{1});
    const auto after = policy->Pick(all, {}, Time{9});  // After 1 comes 2.
    QCOMPARE(all[*after].backend, BackendId{2});
  }

  void leastLoadedWithoutErrorCountingSinkholesIntoAFastFailingBackend() {
    PolicyOptions options;
    options.kind = PolicyKind::kLeastLoaded;
    options.count_errors_as_active = false;
    auto policy = MakePolicy(options);
    PolicyDriver driver(*policy, 3, 12);
    // Backends 0 and 1 take 10 ms; backend 2 fails in 50 us, so it always looks idle.
    const Counts counts = driver.Run(3s, [](BackendId backend, Time, Rng&) {
      return backend == 2 ? Answer{Result::kError, 50us, std::nullopt} : Success(10ms);
    });
    qInfo("naive least loaded: the fast-failing backend got %.1f%% of %llu attempts",
          100 * counts.Share(2), static_cast<unsigned long long>(counts.total));
    QVERIFY2(counts.Share(2) > 0.8, qPrintable(QString::number(counts.Share(2))));
  }

  void leastLoadedCountingErrorsDoesNotSinkhole() {
    auto policy = Make(PolicyKind::kLeastLoaded);
    PolicyDriver driver(*policy, 3, 12);
    const Counts counts = driver.Run(10s, [](BackendId backend, Time, Rng&) {
      return backend == 2 ? Answer{Result::kError, 50us, std::nullopt} : Success(10ms);
    });
    qInfo("least loaded counting errors: the fast-failing backend got %.2f%% of %llu attempts",
          100 * counts.Share(2), static_cast<unsigned long long>(counts.total));
    QVERIFY2(counts.Share(2) < 0.05, qPrintable(QString::number(counts.Share(2))));
    QVERIFY(counts.Share(0) > 0.4 && counts.Share(1) > 0.4);
    const Explanation explanation = policy->Explain(driver.now());
    QCOMPARE(explanation.backends.size(), size_t{3});
    QVERIFY(explanation.backends[2].recent_errors > 1);
    QCOMPARE(explanation.backends[0].recent_errors, 0.0);
  }

  void weightedFollowsReportedCapacity() {
    auto policy = Make(PolicyKind::kWeighted);
    PolicyDriver driver(*policy, 2, 1);
    // Same request rate, backend 1 at half the utilization: twice the capacity, twice the share.
    const Counts counts = driver.Run(5s, [](BackendId backend, Time, Rng&) {
      return Answer{Result::kSuccess, 1ms, LoadReport{backend == 0 ? 0.5 : 0.25, 100, 0}};
    });
    qInfo("weighted: backend 1 (half the utilization) got %.3f", counts.Share(1));
    QVERIFY2(std::abs(counts.Share(1) - 2.0 / 3.0) < 0.02,
             qPrintable(QString::number(counts.Share(1))));
  }

  void weightedPenalisesErrors() {
    auto policy = Make(PolicyKind::kWeighted);
    PolicyDriver driver(*policy, 2, 1);
    // Equal utilization and rate, but half of backend 1's requests fail: half its capacity.
    const Counts counts = driver.Run(5s, [](BackendId backend, Time, Rng&) {
      return Answer{Result::kSuccess, 1ms, LoadReport{0.5, 100, backend == 1 ? 50.0 : 0.0}};
    });
    QVERIFY2(std::abs(counts.Share(1) - 1.0 / 3.0) < 0.02,
             qPrintable(QString::number(counts.Share(1))));
  }

  void weightedExpiresReportsThatStop() {
    auto policy = Make(PolicyKind::kWeighted);
    PolicyDriver driver(*policy, 2, 1);
    auto both_report = [](BackendId backend, Time, Rng&) {
      return Answer{Result::kSuccess, 1ms, LoadReport{backend == 0 ? 0.5 : 0.25, 100, 0}};
    };
    const Counts reporting = driver.Run(5s, both_report);
    QVERIFY(reporting.Share(1) > 0.6);
    // Backend 1's reports stop (say, an old server build): after report_ttl (10 s) its last
    // report no longer counts and it gets the mean weight.
    auto one_reports = [](BackendId backend, Time, Rng&) {
      return backend == 0 ? Answer{Result::kSuccess, 1ms, LoadReport{0.5, 100, 0}} : Success(1ms);
    };
    const Counts before_ttl = driver.Run(9s, one_reports);
    QVERIFY2(before_ttl.Share(1) > 0.6, qPrintable(QString::number(before_ttl.Share(1))));
    driver.Run(2s, one_reports);
    const Counts expired = driver.Run(5s, one_reports);
    QVERIFY2(std::abs(expired.Share(1) - 0.5) < 0.02,
             qPrintable(QString::number(expired.Share(1))));
    const Explanation explanation = policy->Explain(driver.now());
    QCOMPARE(QString::fromStdString(explanation.backends[1].note), QString("report expired"));
  }

  void weightedFloorKeepsAFailingBackendAlive() {
    auto policy = Make(PolicyKind::kWeighted);
    PolicyDriver driver(*policy, 2, 1);
    // Backend 1 fails everything: zero capacity, but the floor (5% of the mean) keeps it in play
    // so that its recovery can show in its reports.
    const Counts counts = driver.Run(5s, [](BackendId backend, Time, Rng&) {
      return backend == 0 ? Answer{Result::kSuccess, 1ms, LoadReport{0.5, 100, 0}}
                          : Answer{Result::kError, 1ms, LoadReport{0.5, 100, 100}};
    });
    qInfo("weighted: the failing backend keeps %.2f%% at the floor", 100 * counts.Share(1));
    QVERIFY2(counts.Share(1) > 0.01 && counts.Share(1) < 0.05,
             qPrintable(QString::number(counts.Share(1))));
    QCOMPARE(QString::fromStdString(policy->Explain(driver.now()).backends[1].note),
             QString("at weight floor"));
  }

  void adaptiveGivesAHalfFailingBackendItsCubedShare() {
    // Rate cubed: 0.5^3 = 0.125 against 1 + 1 from two healthy peers, 5.9% of the picks. (The
    // issue hopes for under 5%; with three backends the seed's cube cannot give that, see below.)
    const double share = FlakyShare(3, 3.0);
    qInfo(
        "adaptive: a 50%%-success backend beside two healthy peers gets %.2f%% (0.125/2.125 = "
        "5.88%%)",
        100 * share);
    QVERIFY2(std::abs(share - 0.125 / 2.125) < 0.012, qPrintable(QString::number(share)));
  }

  void adaptiveGivesAHalfFailingBackendUnderFivePercent() {
    const double among_four = FlakyShare(4, 3.0);    // 0.125 / 3.125 = 4%.
    const double fourth_power = FlakyShare(3, 4.0);  // 0.0625 / 2.0625 = 3%.
    qInfo(
        "adaptive: a 50%%-success backend gets %.2f%% beside three healthy peers, %.2f%% "
        "beside two with success_exponent 4",
        100 * among_four, 100 * fourth_power);
    QVERIFY2(among_four < 0.05, qPrintable(QString::number(among_four)));
    QVERIFY2(fourth_power < 0.05, qPrintable(QString::number(fourth_power)));
  }

  void adaptiveLeansOnAHalfFailingBackendWhenItsPeersDie() {
    auto policy = Make(PolicyKind::kAdaptive);
    PolicyDriver driver(*policy, 3, 8);
    bool peers_down = false;
    auto behaviour = [&peers_down](BackendId backend, Time, Rng& rng) {
      if (backend == 2) {
        return rng.Uniform() < 0.5 ? Answer{Result::kError, 2ms, std::nullopt} : Success(5ms);
      }
      return peers_down ? Answer{Result::kError, 100us, std::nullopt} : Success(5ms);
    };
    driver.Run(20s, behaviour);
    QVERIFY(policy->Explain(driver.now()).backends[2].weight < 0.1);
    peers_down = true;  // Health is relative: now the 50% backend is the best there is.
    driver.Run(5s, behaviour);
    const Counts dead_peers = driver.Run(30s, behaviour);
    qInfo("adaptive: once its peers fail hard it gets %.1f%% of %llu attempts",
          100 * dead_peers.Share(2), static_cast<unsigned long long>(dead_peers.total));
    // Most attempts, though the dead peers' failures take 100 us against its 5 ms, so each of
    // their rare picks is soon followed by another.
    QVERIFY2(dead_peers.Share(2) > 0.8, qPrintable(QString::number(dead_peers.Share(2))));
    const Explanation explanation = policy->Explain(driver.now());
    // The dead peers keep only a sliver of weight (their old successes fade with the half life).
    QVERIFY(explanation.backends[0].weight < 0.05 && explanation.backends[1].weight < 0.05);
    QVERIFY(explanation.backends[2].weight > 0.9);
    QVERIFY(explanation.backends[0].recent_errors > 10);
  }

  void adaptiveProbeFloorLetsADeadBackendRecover() {
    auto policy = Make(PolicyKind::kAdaptive);
    PolicyDriver driver(*policy, 3, 8);
    bool dead = true;
    auto behaviour = [&dead](BackendId backend, Time, Rng&) {
      if (backend == 0 && dead) return Answer{Result::kError, 100us, std::nullopt};
      return Success(2ms);
    };
    driver.Run(20s, behaviour);
    const Counts while_dead = driver.Run(10s, behaviour);
    QVERIFY2(while_dead.Share(0) < 0.001, qPrintable(QString::number(while_dead.Share(0))));
    QVERIFY(policy->Explain(driver.now()).backends[0].ejected);
    dead = false;
    // Only the floor's rare first picks reach it now; one success lifts its rate (the old
    // failures have decayed) and it is back in rotation.
    driver.Run(120s, behaviour);
    const Counts recovered = driver.Run(10s, behaviour);
    qInfo("adaptive: a recovered backend is back at %.1f%%", 100 * recovered.Share(0));
    QVERIFY2(recovered.Share(0) > 0.25, qPrintable(QString::number(recovered.Share(0))));
  }

  void adaptiveLimiterFailsFastAtItsLimit() {
    auto policy = Make(PolicyKind::kAdaptive);
    const std::vector<Candidate> one = Candidates(1);
    uint32_t granted = 0;
    for (int i = 0; i < 200 && policy->Pick(one, {}, Time{0}); ++i) ++granted;
    QCOMPARE(granted, AimdLimiter::Options{}.initial_limit);
    QVERIFY(!policy->Pick(one, {}, Time{0}));  // Fail fast, not queue.
    QCOMPARE(QString::fromStdString(policy->Explain(Time{0}).backends[0].note),
             QString("at limit"));
    policy->Finish({0, Result::kSuccess, 1ms, std::nullopt, Time{1}});
    QVERIFY(policy->Pick(one, {}, Time{1}));
  }

  void limiterShrinksOnTimeoutsAndLatencyGrowthAndGrowsWhenUsed() {
    AimdLimiter limiter;
    const uint32_t start = limiter.limit();
    QVERIFY(limiter.TryAcquire());
    limiter.Release(Result::kTimeout, 1s);
    QVERIFY(limiter.limit() < start);
    // Errors and application results say nothing about overload.
    const uint32_t after_timeout = limiter.limit();
    QVERIFY(limiter.TryAcquire());
    limiter.Release(Result::kError, 1ms);
    QVERIFY(limiter.TryAcquire());
    limiter.Release(Result::kIgnored, 1ms);
    QCOMPARE(limiter.limit(), after_timeout);
    // Used to the full at a steady latency: it grows.
    for (int round = 0; round < 20; ++round) {
      const uint32_t limit = limiter.limit();
      for (uint32_t i = 0; i < limit; ++i) QVERIFY(limiter.TryAcquire());
      QVERIFY(!limiter.TryAcquire());
      for (uint32_t i = 0; i < limit; ++i) limiter.Release(Result::kSuccess, 10ms);
    }
    const uint32_t grown = limiter.limit();
    QVERIFY(grown > after_timeout);
    // Latency grows tenfold: the limit comes down although nothing failed.
    for (int i = 0; i < 10; ++i) {
      QVERIFY(limiter.TryAcquire());
      limiter.Release(Result::kSuccess, 100ms);
    }
    QVERIFY2(limiter.limit() < grown,
             qPrintable(QString("%1 -> %2").arg(grown).arg(limiter.limit())));
    QVERIFY(limiter.drops() > 1);
  }

  void everyPolicyCapsActiveAttemptsPerBackend() {
    for (PolicyKind kind : kAllKinds) {
      auto policy = Make(kind);
      const std::vector<Candidate> two = Candidates(2);
      uint32_t most = 0;
      // Rounds of holding as many attempts as the policy grants, then finishing them well, so
      // the adaptive limiter grows up to the cap.
      for (int round = 0; round < 200; ++round) {
        std::vector<BackendId> held;
        for (int i = 0; i < 300; ++i) {
          const auto index = policy->Pick(two, {}, Time{round});
          if (!index) break;
          held.push_back(two[*index].backend);
        }
        uint32_t on_zero = 0;
        for (BackendId backend : held) on_zero += backend == 0 ? 1 : 0;
        most = std::max({most, on_zero, static_cast<uint32_t>(held.size()) - on_zero});
        QVERIFY2(on_zero <= 100 && held.size() - on_zero <= 100,
                 qPrintable(QString("%1: %2 and %3 active")
                                .arg(PolicyKindName(kind).data())
                                .arg(on_zero)
                                .arg(held.size() - on_zero)));
        for (BackendId backend : held) {
          policy->Finish({backend, Result::kSuccess, 1ms, std::nullopt, Time{round}});
        }
      }
      QVERIFY2(most == 100,
               qPrintable(QString("%1 peaked at %2").arg(PolicyKindName(kind).data()).arg(most)));
    }
  }

  void capIsConfigurable() {
    PolicyOptions options;
    options.kind = PolicyKind::kRoundRobin;
    options.max_active_per_backend = 3;
    auto policy = MakePolicy(options);
    const std::vector<Candidate> one = Candidates(1);
    for (int i = 0; i < 3; ++i) QVERIFY(policy->Pick(one, {}, Time{0}));
    QVERIFY(!policy->Pick(one, {}, Time{0}));
    QCOMPARE(policy->Explain(Time{0}).backends[0].limit, 3u);
  }

  void retryBudgetHoldsRetriesToAFifthOfRequests() {
    RetryBudget budget;
    uint64_t requests = 0, retries = 0;
    // An outage: 1000 requests/s for a minute, each failing and wanting 3 retries.
    for (int ms = 0; ms < 60'000; ++ms) {
      const Time now = std::chrono::milliseconds(ms);
      budget.RecordRequest(now);
      ++requests;
      for (int attempt = 0; attempt < 3 && budget.TryRetry(now); ++attempt) ++retries;
    }
    const double ratio = static_cast<double>(retries) / static_cast<double>(requests);
    qInfo("retry budget: %.3f retries per request in an outage (budget 0.2), %llu refused", ratio,
          static_cast<unsigned long long>(budget.retries_refused()));
    QVERIFY2(ratio > 0.17 && ratio < 0.23, qPrintable(QString::number(ratio)));
    QVERIFY(budget.retries_refused() > requests / 2);
  }

  void retryBudgetLetsATrickleRetry() {
    RetryBudget budget;  // 10 retries per 10 s window even with almost no requests.
    int granted = 0;
    for (int i = 0; i < 20; ++i) granted += budget.TryRetry(std::chrono::seconds(100)) ? 1 : 0;
    QCOMPARE(granted, 10);
    QVERIFY(budget.available(std::chrono::seconds(100)) < 1);
    QVERIFY(budget.available(std::chrono::seconds(125)) >= 10);  // A new window.
  }

  void samePolicySameSeedSamePicks() {
    auto run = [](PolicyKind kind, uint64_t seed) {
      auto policy = Make(kind, seed);
      PolicyDriver driver(*policy, 5, 6, 11);
      std::vector<uint64_t> shares;
      for (int stretch = 0; stretch < 5; ++stretch) {
        const Counts counts = driver.Run(1s, [](BackendId backend, Time, Rng& rng) {
          const bool fail = rng.Uniform() < 0.1 * backend;
          return Answer{fail ? Result::kError : Result::kSuccess,
                        std::chrono::microseconds(500 + 300 * backend),
                        LoadReport{0.1 * (backend + 1), 100, fail ? 10.0 : 0.0}};
        });
        for (const auto& [backend, picks] : counts.picks) shares.push_back(picks);
      }
      return shares;
    };
    for (PolicyKind kind : kAllKinds) {
      QCOMPARE(run(kind, 5), run(kind, 5));
    }
    QVERIFY(run(PolicyKind::kAdaptive, 5) != run(PolicyKind::kAdaptive, 6));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(PoliciesTest)
#include "tst_policies.moc"
