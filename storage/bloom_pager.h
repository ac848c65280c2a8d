// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: Bloom filter pages and the pager that keeps the most useful of them in
// memory.
//
// usefulness(page) = requests to the page in about the last Options::bloom_usefulness_window x
// the probability that the page answers "no" (P(no)), as in the docstore seed.
//
// P(no) is measured, with the seed's size rule (1 - the index's share of the keys in it and all
// older indexes) as the prior. The size rule assumes every key asked for exists, and gives the
// oldest index P(no) = 0; with absent keys in the workload, every absent read reaches the oldest
// index and its filter would say "no". A page that is not resident cannot answer, so it would never
// be measured and never loaded. It does not have to answer to be measured: a read that passes a
// non-resident page searches the index anyway, and when the index does not hold the key, the page
// would have said "no" (unless it gave one of its false positives, at the filter's design rate).
// So each page counts both what it answered while resident and the outcome of the searches made
// while it was not, at no extra I/O; no page is ever read on the read path (the seed: paging a
// filter in for a lookup costs more than searching the index). A page's P(no) is then, in order:
//   - its own rate, once it has seen Options::bloom_min_lookups_for_measured_rate lookups;
//   - else its filter's rate over all its pages, once the filter has seen that many (keys are
//     spread over pages by a hash, so pages differ in how often they are asked, hardly in how often
//     the key is absent; this lets a large index be measured after as many lookups as a small one);
//   - else the size rule.
// Budget: pages are taken most useful first (ties: highest P(no)) while they fit, so free budget
// goes to every page that can say "no" at all, before ranking matters; a page with P(no) = 0 is
// never kept. Resident bytes never exceed Options::bloom_memory_budget.
// The counts forget: each page counts in two windows of W lookups
// (Options::bloom_min_lookups_for_measured_rate), the current one and the last full one; when the
// current one fills, it becomes the last and a new one starts. So a page's own rate always rests
// on its latest W to 2W lookups, and when the share of absent keys changes, a page's P(no) is
// measured on the new workload alone once the page has seen 2W lookups since the change; the next
// re-rank acts on it. (With cumulative counts, a page that said "no" for a long time stayed ranked
// on its past for about as many lookups again.) The filter's rate sums its pages' windows.

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "storage/bloom.h"
#include "storage/mutex.h"
#include "storage/options.h"
#include "storage/stats.h"

namespace railyard::storage {

enum class BloomAnswer { kNo, kMaybe, kNotResident };

// One index's filter as the read path sees it.
//
// Thread safety: MayContain and the counters from any thread; the pager swaps pages in and out
// concurrently. A lookup tests a page's bits under that page's own mutex, so a page never vanishes
// under a reader and readers of different pages never contend. (std::atomic<std::shared_ptr> would
// also do, but GCC 12's implementation is invisible to ThreadSanitizer and costs a lock anyway.)
class PagedFilter {
 public:
  // `window_lookups`: W above (0 counts as 1).
  PagedFilter(uint64_t index_number, std::shared_ptr<BloomFile> file,
              uint32_t window_lookups = 1000);

  BloomAnswer MayContain(uint64_t id);
  // As MayContain, counting nothing (an operator's lookup must not move the figures).
  BloomAnswer Probe(uint64_t id) const;
  // The index was searched for `id` after MayContain(id) returned `answer` (kMaybe or
  // kNotResident), and `found` says whether it held the id: a false positive, or a measurement of
  // a page that is not resident.
  void RecordSearch(uint64_t id, BloomAnswer answer, bool found);
  double measured_false_positive_rate() const;
  // Lookups that searched the index: the filter said "maybe" or its page was not resident.
  uint64_t index_searches() const { return searches_.load(std::memory_order_relaxed); }
  // The size rule's P(no), set by the store whenever the set of indexes changes.
  void set_size_rule_p_no(double p) { size_rule_p_no_.store(p, std::memory_order_relaxed); }
  double size_rule_p_no() const { return size_rule_p_no_.load(std::memory_order_relaxed); }

  uint64_t index_number() const { return index_number_; }
  const BloomFile& file() const { return *file_; }

 private:
  friend class BloomPager;
  // What a page saw over one window of lookups.
  struct Window {
    uint64_t answered = 0;  // Lookups answered while resident.
    uint64_t nos = 0;
    uint64_t unanswered = 0;         // Searches made while not resident.
    uint64_t unanswered_absent = 0;  // Of those, the index did not hold the id.
    uint64_t lookups() const { return answered + unanswered; }
  };
  struct Page {
    std::atomic<uint32_t> requests{0};  // Since the last re-rank.
    mutable Mutex mu;
    std::vector<uint8_t> bits RAILYARD_GUARDED_BY(mu);  // Empty: not resident.
    Window current RAILYARD_GUARDED_BY(mu);
    Window last RAILYARD_GUARDED_BY(mu);  // The last full window.
    // Used under the pager's rerank_mu_ (which the analysis cannot name from here).
    double recent = 0;

    bool resident() const RAILYARD_EXCLUDES(mu);
    void Load(std::vector<uint8_t> page_bits)
        RAILYARD_EXCLUDES(mu);           // Copied before the lock is taken.
    bool Evict() RAILYARD_EXCLUDES(mu);  // True if it was resident.
    // After a lookup was counted in `current`: starts a new window once it holds `window`.
    void EndWindowIfFull(uint64_t window) RAILYARD_REQUIRES(mu);
  };

  const uint64_t index_number_;
  const std::shared_ptr<BloomFile> file_;
  const uint64_t window_lookups_;
  std::unique_ptr<Page[]> pages_;
  std::atomic<double> size_rule_p_no_{1.0};
  std::atomic<uint64_t> false_positives_{0};
  std::atomic<uint64_t> nos_{0};
  std::atomic<uint64_t> searches_{0};
};

// Ranks every page of every filter and keeps the most useful resident within the memory budget.
// Ranking runs on its own thread every Options::bloom_rerank_interval, never on the read path.
class BloomPager {
 public:
  explicit BloomPager(const Options& options);
  ~BloomPager();
  BloomPager(const BloomPager&) = delete;
  BloomPager& operator=(const BloomPager&) = delete;

  void Start();
  void Stop() RAILYARD_EXCLUDES(mu_);
  void Add(std::shared_ptr<PagedFilter> filter) RAILYARD_EXCLUDES(mu_);  // Ranks soon after.
  void Remove(const PagedFilter* filter) RAILYARD_EXCLUDES(rerank_mu_, mu_);
  // Re-ranks now, on the calling thread.
  void Rerank() RAILYARD_EXCLUDES(rerank_mu_, mu_);

  uint64_t budget_bytes() const { return options_.bloom_memory_budget; }
  uint64_t resident_bytes() const { return resident_bytes_.load(); }
  std::vector<BloomPageStats> PageStats() const RAILYARD_EXCLUDES(rerank_mu_, mu_);

 private:
  // Lookups and (expected) "no" answers of one page, or summed over a filter.
  struct NoCount {
    double lookups = 0;
    double nos = 0;
  };
  NoCount PageNoCount(const PagedFilter::Page& page) const;
  // The filter's P(no) when a page has too few lookups of its own: measured over all its pages, or
  // the size rule.
  double FilterNo(const PagedFilter& filter) const;
  double PageNo(const PagedFilter::Page& page, double filter_no) const;
  void Run() RAILYARD_EXCLUDES(mu_);

  const Options& options_;
  // One re-rank at a time; also guards every page's `recent`.
  mutable Mutex rerank_mu_ RAILYARD_ACQUIRED_BEFORE(mu_);
  std::chrono::steady_clock::time_point last_rerank_ RAILYARD_GUARDED_BY(rerank_mu_);
  mutable Mutex mu_;
  std::vector<std::shared_ptr<PagedFilter>> filters_ RAILYARD_GUARDED_BY(mu_);
  std::atomic<uint64_t> resident_bytes_{0};
  CondVar wake_;
  bool stopping_ RAILYARD_GUARDED_BY(mu_) = false;
  bool rerank_soon_ RAILYARD_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace railyard::storage
