#pragma once

// Internal to storage/: Bloom filter pages and the pager that keeps the most useful of them in
// memory.
//
// usefulness(page) = requests to the page in about the last Options::bloom_usefulness_window x
// the probability that the page answers "no". That probability comes from the seed's size rule
// (1 - the index's share of the keys in it and all older indexes) until the page has answered
// enough lookups to use its measured "no" rate. A page that is not resident answers "maybe".

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
  PagedFilter(uint64_t index_number, std::shared_ptr<BloomFile> file);

  BloomAnswer MayContain(uint64_t id);
  // The filter said maybe and the index did not have the id.
  void RecordFalsePositive() { false_positives_.fetch_add(1, std::memory_order_relaxed); }
  double measured_false_positive_rate() const;
  // The size rule's P(no), set by the store whenever the set of indexes changes.
  void set_size_rule_p_no(double p) { size_rule_p_no_.store(p, std::memory_order_relaxed); }
  double size_rule_p_no() const { return size_rule_p_no_.load(std::memory_order_relaxed); }

  uint64_t index_number() const { return index_number_; }
  const BloomFile& file() const { return *file_; }

 private:
  friend class BloomPager;
  struct Page {
    std::atomic<uint32_t> requests{0};  // Since the last re-rank.
    std::atomic<uint64_t> answered{0};  // Lookups answered while resident.
    std::atomic<uint64_t> nos{0};
    mutable Mutex mu;
    std::vector<uint8_t> bits GUARDED_BY(mu);  // Empty: not resident.
    // Used under the pager's rerank_mu_ (which the analysis cannot name from here).
    double recent = 0;

    bool resident() const EXCLUDES(mu);
    void Load(std::vector<uint8_t> page_bits) EXCLUDES(mu);  // Copied before the lock is taken.
    bool Evict() EXCLUDES(mu);                               // True if it was resident.
  };

  const uint64_t index_number_;
  const std::shared_ptr<BloomFile> file_;
  std::unique_ptr<Page[]> pages_;
  std::atomic<double> size_rule_p_no_{1.0};
  std::atomic<uint64_t> false_positives_{0};
  std::atomic<uint64_t> nos_{0};
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
  void Stop() EXCLUDES(mu_);
  void Add(std::shared_ptr<PagedFilter> filter) EXCLUDES(mu_);  // Ranks soon after.
  void Remove(const PagedFilter* filter) EXCLUDES(rerank_mu_, mu_);
  // Re-ranks now, on the calling thread.
  void Rerank() EXCLUDES(rerank_mu_, mu_);

  uint64_t budget_bytes() const { return options_.bloom_memory_budget; }
  uint64_t resident_bytes() const { return resident_bytes_.load(); }
  std::vector<BloomPageStats> PageStats() const EXCLUDES(rerank_mu_, mu_);

 private:
  double PageNo(const PagedFilter& filter, const PagedFilter::Page& page) const;
  void Run() EXCLUDES(mu_);

  const Options& options_;
  // One re-rank at a time; also guards every page's `recent`.
  mutable Mutex rerank_mu_ ACQUIRED_BEFORE(mu_);
  std::chrono::steady_clock::time_point last_rerank_ GUARDED_BY(rerank_mu_);
  mutable Mutex mu_;
  std::vector<std::shared_ptr<PagedFilter>> filters_ GUARDED_BY(mu_);
  std::atomic<uint64_t> resident_bytes_{0};
  CondVar wake_;
  bool stopping_ GUARDED_BY(mu_) = false;
  bool rerank_soon_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace railyard::storage
