// SPDX-License-Identifier: Apache-2.0
// Lowest slot made smarter, driven directly: of its two best slots it takes the backend whose
// answers have been faster and error-free, and a penalty fades once the backend is left alone.
#include <QTest>
#include <chrono>
#include <memory>
#include <vector>

#include "core/balance/policy.h"
#include "tests/support/qtest_main.h"

using namespace railyard::balance;
using namespace std::chrono_literals;

namespace {

// Backend 0 holds the best slot, backend 1 the next; backend 2 the third.
const std::vector<Candidate> kCandidates = {{0, 0, 1}, {1, 1, 1}, {2, 2, 1}};

std::unique_ptr<Policy> Make(uint32_t slot_choices) {
  PolicyOptions options;
  options.slot_choices = slot_choices;
  return MakePolicy(options);
}

// One attempt on `backend` that ends at `now` with `result` after `latency`.
void Attempt(Policy& policy, BackendId backend, Result result, Duration latency, Time now) {
  const std::vector<Candidate> only = {{backend, 0, 1}};
  policy.Pick(only, {}, now);
  policy.Finish({backend, result, latency, std::nullopt, now});
}

BackendId Picked(Policy& policy, Time now) {
  const std::optional<size_t> i = policy.Pick(kCandidates, {}, now);
  if (!i) qFatal("no pick");
  const BackendId backend = kCandidates[*i].backend;
  policy.Finish({backend, Result::kIgnored, {}, std::nullopt, now});
  return backend;
}

}  // namespace

class LowestSlotTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void knowingNothingItTakesTheLowestSlot() {
    auto policy = Make(2);
    QCOMPARE(Picked(*policy, Time(1s)), BackendId{0});
  }

  void ofTheTwoBestSlotsItTakesTheFasterBackend() {
    auto smarter = Make(2);
    auto plain = Make(1);
    Time now = 1s;
    for (int i = 0; i < 20; ++i) {
      now += 10ms;
      for (Policy* p : {smarter.get(), plain.get()}) {
        Attempt(*p, 0, Result::kSuccess, 100ms, now);  // Slow (contended, 50x slower...).
        Attempt(*p, 1, Result::kSuccess, 5ms, now);
        Attempt(*p, 2, Result::kSuccess, 1ms, now);  // Fastest, but not among the two best slots.
      }
    }
    QCOMPARE(Picked(*smarter, now), BackendId{1});
    QCOMPARE(Picked(*plain, now), BackendId{0});  // Plain Boxcar: the slot alone.
  }

  void timeoutsAndErrorsCountAgainstABackend() {
    auto timeouts = Make(2);
    auto errors = Make(2);
    Time now = 1s;
    for (int i = 0; i < 5; ++i) {
      now += 10ms;
      Attempt(*timeouts, 1, Result::kSuccess, 5ms, now);
      Attempt(*timeouts, 0, Result::kTimeout, 250ms, now);
      Attempt(*errors, 1, Result::kSuccess, 5ms, now);
      Attempt(*errors, 0, Result::kSuccess, 5ms, now);
      Attempt(*errors, 0, Result::kError, 100us, now);  // Fast errors: a sinkhole looks fast.
    }
    QCOMPARE(Picked(*timeouts, now), BackendId{1});
    QCOMPARE(Picked(*errors, now), BackendId{1});
  }

  // A penalty fades towards the all-backends average once the backend is left alone, so it wins
  // its better slot back from a peer slower than that average.
  void aPenaltyFadesOnceTheBackendIsLeftAlone() {
    auto policy = Make(2);
    Time now = 1s;
    for (int i = 0; i < 20; ++i) {
      now += 10ms;
      Attempt(*policy, 0, Result::kSuccess, 100ms, now);
      Attempt(*policy, 1, Result::kSuccess, 20ms, now);
      Attempt(*policy, 2, Result::kSuccess, 1ms, now);
    }
    QCOMPARE(Picked(*policy, now), BackendId{1});
    // Backends 1 and 2 keep answering (average about 10 ms); backend 0 gets no samples and its
    // excess over the average halves every second.
    for (int i = 0; i < 100; ++i) {
      now += 100ms;
      Attempt(*policy, 1, Result::kSuccess, 20ms, now);
      Attempt(*policy, 2, Result::kSuccess, 1ms, now);
    }
    QCOMPARE(Picked(*policy, now), BackendId{0});
  }
};

RAILYARD_QTEST_GUILESS_MAIN(LowestSlotTest)
#include "tst_lowest_slot.moc"
