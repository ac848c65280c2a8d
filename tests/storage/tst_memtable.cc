// SPDX-License-Identifier: Apache-2.0
// The in-memory index: every id put is found with its latest value, absent ids are absent, the
// sorted dump is complete, at the default size and at a tiny one; and a full-size table asks the
// kernel for huge pages, which is what makes its random probes cheap (see memtable.h); the large
// tables' memory leaves the process when they are freed (storage/huge_page_memory.h).
#include <QTest>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "storage/huge_page_memory.h"
#include "storage/memtable.h"
#include "storage/options.h"
#include "tests/support/qtest_main.h"

using namespace railyard::storage;

namespace {

IndexValue ValueFor(uint64_t id, uint32_t version) {
  IndexValue value;
  value.kind = EntryKind::kPut;
  value.address.segment = static_cast<uint32_t>(id);
  value.address.block_offset = version;
  return value;
}

// The transparent huge page mode ("always", "madvise" or "never"), or "" where there is none.
std::string HugePageMode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  const size_t open = line.find('['), close = line.find(']');
  if (open == std::string::npos || close == std::string::npos) return {};
  return line.substr(open + 1, close - open - 1);
}

// The smaps "THPeligible" value of the mapping that holds `address`, or -1 if not found.
int HugePageEligible(const void* address) {
  const auto at = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= at && at < end;
      continue;
    }
    if (inside && line.rfind("THPeligible:", 0) == 0) return std::stoi(line.substr(12));
  }
  return -1;
}

// Whether any mapping of this process holds `address` (/proc/self/maps).
bool IsMapped(const void* address) {
  const auto at = reinterpret_cast<uintptr_t>(address);
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-' && begin <= at && at < end) {
      return true;
    }
  }
  return false;
}

}  // namespace

class TestMemTable : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void aFullDefaultSizeTableFindsEveryIdAndItsLatestValue() {
    const size_t capacity = Options{}.memtable_entries;
    MemTable table(capacity);
    // Multiplying by an odd constant is a bijection on 64 bits: distinct, scattered ids.
    const auto id_of = [](uint64_t i) { return (i + 1) * 0x9E3779B97F4A7C15ull; };
    for (uint64_t i = 0; i < capacity; ++i) table.Put(id_of(i), ValueFor(id_of(i), 1));
    QVERIFY(table.full());
    for (uint64_t i = 0; i < capacity; i += 3) table.Put(id_of(i), ValueFor(id_of(i), 2));
    QCOMPARE(table.size(), capacity);  // Overwrites take no new slot.
    for (uint64_t i = 0; i < capacity; ++i) {
      const auto value = table.Get(id_of(i));
      QVERIFY(value.has_value());
      QCOMPARE(value->address.block_offset, i % 3 == 0 ? 2u : 1u);
    }
    for (uint64_t i = capacity; i < capacity + 10000; ++i)
      QVERIFY(!table.Get(id_of(i)).has_value());
    std::vector<uint64_t> ids(capacity);
    for (uint64_t i = 0; i < capacity; ++i) ids[i] = id_of(i);
    std::sort(ids.begin(), ids.end());
    const MemTable::SortedCopy sorted = table.SortedEntries();
    QCOMPARE(sorted.size(), capacity);
    for (size_t i = 0; i < capacity; ++i) QCOMPARE(sorted[i].id, ids[i]);
  }

  void aTinyTableWorksToo() {
    MemTable table(3);
    for (uint64_t id : {5u, 1u, 9u}) table.Put(id, ValueFor(id, 1));
    QVERIFY(table.full());
    QVERIFY(!table.Get(2).has_value());
    QCOMPARE(table.Get(9)->address.segment, 9u);
    QCOMPARE(table.SortedEntries().front().id, uint64_t{1});
  }

  void aFullSizeTableIsEligibleForHugePages() {
    const std::string mode = HugePageMode();
    if (mode != "always" && mode != "madvise") {
      const std::string why = "transparent huge pages are '" + mode + "' on this machine";
      QSKIP(why.c_str());
    }
    const MemTable table(Options{}.memtable_entries);
    const int eligible = HugePageEligible(table.slot_memory());
    if (eligible < 0) QSKIP("this kernel's smaps has no THPeligible line");
    QCOMPARE(eligible, 1);
  }

  // The index copies take their memory from the same place (IndexFile::LoadIntoMemory).
  void largeAllocationsAreHugePageAlignedSmallOnesAreNot() {
    const size_t large_bytes = 3 * kHugePageBytes + 1;
    const std::unique_ptr<void, FreeHugePageMemory> large(AllocateHugePageAdvised(large_bytes, 16),
                                                          FreeHugePageMemory{large_bytes});
    QCOMPARE(reinterpret_cast<uintptr_t>(large.get()) % kHugePageBytes, uintptr_t{0});
    const std::unique_ptr<void, FreeHugePageMemory> small(AllocateHugePageAdvised(100, 64),
                                                          FreeHugePageMemory{100});
    QCOMPARE(reinterpret_cast<uintptr_t>(small.get()) % 64, uintptr_t{0});
    const std::string mode = HugePageMode();
    if (mode == "always" || mode == "madvise") QCOMPARE(HugePageEligible(large.get()), 1);
  }

  // glibc raises its mmap threshold to the size of each mapped block it frees, after which a
  // block of 22 MiB comes from an arena and stays in the process once freed: what a flush's
  // sorted copy did to the index copies made after it. A large table's memory must leave.
  void aLargeTableLeavesTheProcessWhenFreedEvenAfterMallocFreedABiggerBlock() {
    void* volatile raised = std::malloc(size_t{24} << 20);  // Volatile: the call must happen.
    std::free(raised);
    const size_t bytes = size_t{22} << 20;
    char* table = static_cast<char*>(AllocateHugePageAdvised(bytes, 16));
    table[0] = table[bytes - 1] = 1;
    QVERIFY(IsMapped(table));
    QVERIFY(IsMapped(table + bytes - 1));
    FreeHugePageAdvised(table, bytes);
    QVERIFY2(!IsMapped(table), "the table's first page is still mapped after it was freed");
    QVERIFY2(!IsMapped(table + bytes - 1), "its last page is still mapped after it was freed");
  }

  void theSortedCopyOfAFullSizeTableIsItsOwnMapping() {
    MemTable table(Options{}.memtable_entries);
    for (uint64_t i = 0; i < table.capacity(); ++i) table.Put(i * 7 + 1, ValueFor(i * 7 + 1, 1));
    uintptr_t data = 0;
    {
      const MemTable::SortedCopy sorted = table.SortedEntries();
      QCOMPARE(sorted.size(), table.capacity());
      QVERIFY(std::is_sorted(sorted.begin(), sorted.end(),
                             [](const IndexEntry& a, const IndexEntry& b) { return a.id < b.id; }));
      data = reinterpret_cast<uintptr_t>(sorted.data());
      QCOMPARE(data % kHugePageBytes, uintptr_t{0});
    }
    QVERIFY2(!IsMapped(reinterpret_cast<const void*>(data)),
             "the sorted copy's memory is still mapped after the copy was destroyed");
  }
};

RAILYARD_QTEST_GUILESS_MAIN(TestMemTable)
#include "tst_memtable.moc"
