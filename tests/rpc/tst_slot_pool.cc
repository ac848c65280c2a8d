// SPDX-License-Identifier: Apache-2.0
// The client pool's ordering, admission and retirement rules, without I/O.
#include <QTest>
#include <random>
#include <set>

#include "core/rpc/slot_pool.h"
#include "tests/support/qtest_main.h"

using railyard::rpc::SlotPool;
using Kind = SlotPool::Admission::Kind;

namespace {

std::vector<uint32_t> SlotsInOrder(const SlotPool& pool) {
  std::vector<uint32_t> slots;
  for (auto handle : pool.order()) slots.push_back(pool.entry(handle).slot);
  return slots;
}

}  // namespace

class SlotPoolTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void acquiresTheLowestIdleSlotFirst() {
    SlotPool pool(4);
    for (uint32_t slot : {7u, 2u, 5u, 0u}) QCOMPARE(pool.Offer(0, slot).kind, Kind::kAdded);
    QCOMPARE(SlotsInOrder(pool), (std::vector<uint32_t>{0, 2, 5, 7}));
    // The Nth concurrent request uses the Nth lowest slot.
    for (uint32_t expected : {0u, 2u, 5u, 7u}) {
      const auto handle = pool.AcquireLowestIdle();
      QVERIFY(handle);
      QCOMPARE(pool.entry(*handle).slot, expected);
    }
    QVERIFY(!pool.AcquireLowestIdle());  // Exhausted: the caller fails fast.
  }

  void releasedConnectionIsPreferredAgain() {
    SlotPool pool(3);
    pool.Offer(0, 1);
    pool.Offer(1, 1);
    pool.Offer(0, 0);
    const auto first = pool.AcquireLowestIdle();
    const auto second = pool.AcquireLowestIdle();
    QVERIFY(!pool.Release(*first));
    QCOMPARE(*pool.AcquireLowestIdle(), *first);
    QVERIFY(!pool.Release(*second));
    QCOMPARE(pool.idle_count(), size_t{2});  // Only `first` is still busy.
  }

  void tiesOnSlotFollowTheClientsServerRanking() {
    SlotPool pool(3);
    // This client ranks server 2 first, then 0, then 1.
    pool.Offer(0, 0, /*tie_break=*/50);
    pool.Offer(1, 0, /*tie_break=*/90);
    pool.Offer(2, 0, /*tie_break=*/10);
    std::vector<uint32_t> servers;
    for (auto handle : pool.order()) servers.push_back(pool.entry(handle).server);
    QCOMPARE(servers, (std::vector<uint32_t>{2, 0, 1}));
    // A lower slot still beats any ranking.
    QCOMPARE(pool.Offer(1, 0, 90).kind, Kind::kRejected);
    pool.Remove(pool.order().back());
    pool.Offer(1, 0, 0);
    QCOMPARE(pool.entry(pool.order().front()).server, 1u);
  }

  void fullPoolReplacesWorstOnlyWithABetterSlot() {
    SlotPool pool(2);
    pool.Offer(0, 3);
    pool.Offer(1, 4);
    QCOMPARE(pool.Offer(0, 5).kind, Kind::kRejected);
    QCOMPARE(pool.Offer(1, 4).kind, Kind::kRejected);  // Equal is not better.
    const SlotPool::Admission admission = pool.Offer(1, 1);
    QCOMPARE(admission.kind, Kind::kReplaced);
    QVERIFY(admission.evicted);
    QVERIFY(!admission.evicted_still_busy);
    QCOMPARE(SlotsInOrder(pool), (std::vector<uint32_t>{1, 3}));
    QCOMPARE(*pool.worst_slot(), 3u);
  }

  // A draining server's members sort last and any fresh connection displaces them from a full
  // pool, whatever its slot: a drain must not keep a client's better-slotted replacements out.
  void drainingMembersGoLastAndAreDisplacedFirst() {
    SlotPool pool(3);
    pool.Offer(0, 0);
    pool.Offer(0, 1);
    pool.Offer(1, 2);
    QCOMPARE(pool.Offer(2, 5).kind, Kind::kRejected);
    pool.SetServerDraining(0, true);
    QCOMPARE(SlotsInOrder(pool), (std::vector<uint32_t>{2, 0, 1}));
    const auto first = pool.AcquireLowestIdle();
    QCOMPARE(pool.entry(*first).server, 1u);  // The one not draining, though its slot is worse.
    const SlotPool::Admission admission = pool.Offer(2, 5);
    QCOMPARE(admission.kind, Kind::kReplaced);
    QCOMPARE(pool.entry(pool.order().back()).server, 0u);  // One draining member is left, last.
    QCOMPARE(SlotsInOrder(pool), (std::vector<uint32_t>{2, 5, 0}));
    pool.SetServerDraining(0, false);  // Serving again: back in slot order.
    QCOMPARE(SlotsInOrder(pool), (std::vector<uint32_t>{0, 2, 5}));
    QVERIFY(!pool.Release(*first));
    QCOMPARE(pool.idle_count(), size_t{3});
  }

  void busyVictimRetiresWhenItsRequestEnds() {
    SlotPool pool(1);
    pool.Offer(0, 9);
    const auto busy = pool.AcquireLowestIdle();
    const SlotPool::Admission admission = pool.Offer(1, 0);
    QCOMPARE(admission.kind, Kind::kReplaced);
    QCOMPARE(*admission.evicted, *busy);
    QVERIFY(admission.evicted_still_busy);
    QVERIFY(admission.handle != *busy);  // The victim's handle is still in use.
    QCOMPARE(SlotsInOrder(pool), (std::vector<uint32_t>{0}));
    QVERIFY(pool.Release(*busy));  // Now it must be closed.
    QCOMPARE(pool.size(), size_t{1});
  }

  void removeFreesIdleAndRetiresBusy() {
    SlotPool pool(3);
    const auto a = pool.Offer(0, 0).handle;
    const auto b = pool.Offer(0, 1).handle;
    QVERIFY(pool.Acquire(b));
    QVERIFY(pool.Remove(a));   // Idle: gone at once.
    QVERIFY(!pool.Remove(b));  // Busy: leaves the order, freed at release.
    QCOMPARE(pool.size(), size_t{0});
    QVERIFY(!pool.AcquireLowestIdle());
    QVERIFY(pool.Release(b));
  }

  void retryAvoidsServersThatFailedWhileOthersAreIdle() {
    SlotPool pool(4);
    pool.Offer(0, 0);
    pool.Offer(1, 0);
    pool.Offer(0, 1);
    const std::vector<uint32_t> failed{0};
    const auto handle = pool.AcquireLowestIdle(failed);
    QCOMPARE(pool.entry(*handle).server, 1u);
    // Only the failed server left idle: better to try it than to fail outright.
    const auto fallback = pool.AcquireLowestIdle(failed);
    QVERIFY(fallback);
    QCOMPARE(pool.entry(*fallback).server, 0u);
  }

  // Random operations against a plain model: order, idleness and the lowest-idle rule agree.
  void randomOperationsMatchAModel() {
    std::mt19937 rng(12345);
    for (size_t capacity : {1u, 7u, 64u, 130u}) {
      SlotPool pool(capacity);
      std::set<SlotPool::Handle> busy;
      for (int step = 0; step < 20000; ++step) {
        switch (rng() % 4) {
          case 0:
            pool.Offer(rng() % 5, rng() % (2 * capacity + 3));
            break;
          case 1:
            if (auto h = pool.AcquireLowestIdle()) busy.insert(*h);
            break;
          case 2:
            if (!busy.empty()) {
              auto it = busy.begin();
              std::advance(it, rng() % busy.size());
              pool.Release(*it);
              busy.erase(it);
            }
            break;
          case 3:
            if (pool.size() > 0) pool.Remove(pool.order()[rng() % pool.size()]);
            break;
        }
        QVERIFY(pool.size() <= capacity);
        // Members are sorted and the idle count matches the entries.
        size_t idle = 0;
        for (size_t i = 0; i < pool.order().size(); ++i) {
          const auto& e = pool.entry(pool.order()[i]);
          QVERIFY(e.member && e.allocated);
          if (!e.busy) ++idle;
          if (i > 0) {
            const auto& prev = pool.entry(pool.order()[i - 1]);
            QVERIFY(prev.slot < e.slot || (prev.slot == e.slot && prev.server <= e.server));
          }
        }
        QCOMPARE(pool.idle_count(), idle);
      }
    }
  }
};

RAILYARD_QTEST_GUILESS_MAIN(SlotPoolTest)
#include "tst_slot_pool.moc"
