// SPDX-License-Identifier: Apache-2.0
#include "storage/bloom_pager.h"

#include <algorithm>
#include <cmath>

namespace railyard::storage {

PagedFilter::PagedFilter(uint64_t index_number, std::shared_ptr<BloomFile> file,
                         uint32_t window_lookups)
    : index_number_(index_number),
      file_(std::move(file)),
      window_lookups_(std::max<uint32_t>(1, window_lookups)),
      pages_(new Page[file_->shape().page_count]) {}

void PagedFilter::Page::EndWindowIfFull(uint64_t window) {
  if (current.lookups() < window) return;
  last = current;
  current = Window{};
}

BloomAnswer PagedFilter::MayContain(uint64_t id) {
  const BloomShape& shape = file_->shape();
  Page& page = pages_[BloomPageOf(shape, id)];
  page.requests.fetch_add(1, std::memory_order_relaxed);
  bool maybe;
  {
    MutexLock lock(&page.mu);
    if (page.bits.empty()) return BloomAnswer::kNotResident;
    maybe = PageMayContain(shape, page.bits.data(), id);
    ++page.current.answered;
    if (!maybe) ++page.current.nos;
    page.EndWindowIfFull(window_lookups_);
  }
  if (maybe) return BloomAnswer::kMaybe;
  nos_.fetch_add(1, std::memory_order_relaxed);
  return BloomAnswer::kNo;
}

BloomAnswer PagedFilter::Probe(uint64_t id) const {
  const BloomShape& shape = file_->shape();
  Page& page = pages_[BloomPageOf(shape, id)];
  MutexLock lock(&page.mu);
  if (page.bits.empty()) return BloomAnswer::kNotResident;
  return PageMayContain(shape, page.bits.data(), id) ? BloomAnswer::kMaybe : BloomAnswer::kNo;
}

void PagedFilter::RecordSearch(uint64_t id, BloomAnswer answer, bool found) {
  searches_.fetch_add(1, std::memory_order_relaxed);
  if (answer == BloomAnswer::kMaybe) {
    if (!found) false_positives_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (answer != BloomAnswer::kNotResident) return;
  Page& page = pages_[BloomPageOf(file_->shape(), id)];
  MutexLock lock(&page.mu);
  ++page.current.unanswered;
  if (!found) ++page.current.unanswered_absent;
  page.EndWindowIfFull(window_lookups_);
}

bool PagedFilter::Page::resident() const {
  MutexLock lock(&mu);
  return !bits.empty();
}

void PagedFilter::Page::Load(std::vector<uint8_t> page_bits) {
  MutexLock lock(&mu);
  bits.swap(page_bits);  // The old bits, if any, are freed after the lock is released.
}

bool PagedFilter::Page::Evict() {
  std::vector<uint8_t> gone;
  MutexLock lock(&mu);
  gone.swap(bits);  // Freed after the lock is released.
  return !gone.empty();
}

double PagedFilter::measured_false_positive_rate() const {
  const double fp = static_cast<double>(false_positives_.load());
  const double no = static_cast<double>(nos_.load());
  return fp + no == 0 ? 0 : fp / (fp + no);
}

BloomPager::BloomPager(const Options& options) : options_(options) {}

BloomPager::~BloomPager() { Stop(); }

void BloomPager::Start() {
  thread_ = std::thread([this] { Run(); });
}

void BloomPager::Stop() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  wake_.NotifyAll();
  if (thread_.joinable()) thread_.join();
}

void BloomPager::Add(std::shared_ptr<PagedFilter> filter) {
  {
    MutexLock lock(&mu_);
    filters_.push_back(std::move(filter));
    rerank_soon_ = true;
  }
  wake_.NotifyAll();
}

void BloomPager::Remove(const PagedFilter* filter) {
  // Waits out a re-rank in progress, which could otherwise load pages of this filter again after
  // they are evicted here, or overwrite resident_bytes_ with a sum that still counts them.
  MutexLock rerank_lock(&rerank_mu_);
  std::shared_ptr<PagedFilter> removed;
  {
    MutexLock lock(&mu_);
    const auto it = std::find_if(filters_.begin(), filters_.end(),
                                 [filter](const auto& f) { return f.get() == filter; });
    if (it == filters_.end()) return;
    removed = *it;
    filters_.erase(it);
  }
  const uint32_t pages = removed->file().shape().page_count;
  for (uint32_t p = 0; p < pages; ++p) {
    if (removed->pages_[p].Evict()) {
      resident_bytes_.fetch_sub(removed->file().shape().page_bytes);
    }
  }
}

BloomPager::NoCount BloomPager::PageNoCount(const PagedFilter::Page& page) const {
  // A search that did not find the id is a "no" the page would have given, unless the key was one
  // of its false positives.
  const double would_say_no = 1.0 - options_.bloom_false_positive_rate;
  uint64_t lookups, nos, unanswered_absent;
  {
    MutexLock lock(&page.mu);
    lookups = page.current.lookups() + page.last.lookups();
    nos = page.current.nos + page.last.nos;
    unanswered_absent = page.current.unanswered_absent + page.last.unanswered_absent;
  }
  NoCount count;
  count.lookups = static_cast<double>(lookups);
  count.nos = static_cast<double>(nos) + static_cast<double>(unanswered_absent) * would_say_no;
  return count;
}

double BloomPager::FilterNo(const PagedFilter& filter) const {
  NoCount total;
  const uint32_t count = filter.file().shape().page_count;
  for (uint32_t p = 0; p < count; ++p) {
    const NoCount page = PageNoCount(filter.pages_[p]);
    total.lookups += page.lookups;
    total.nos += page.nos;
  }
  if (total.lookups >= options_.bloom_min_lookups_for_measured_rate && total.lookups > 0) {
    return total.nos / total.lookups;
  }
  return filter.size_rule_p_no();
}

double BloomPager::PageNo(const PagedFilter::Page& page, double filter_no) const {
  const NoCount count = PageNoCount(page);
  if (count.lookups >= options_.bloom_min_lookups_for_measured_rate && count.lookups > 0) {
    return count.nos / count.lookups;
  }
  return filter_no;
}

void BloomPager::Rerank() {
  MutexLock rerank_lock(&rerank_mu_);
  std::vector<std::shared_ptr<PagedFilter>> filters;
  {
    MutexLock lock(&mu_);
    filters = filters_;
  }
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = last_rerank_ == std::chrono::steady_clock::time_point{}
                             ? 0
                             : std::chrono::duration<double>(now - last_rerank_).count();
  last_rerank_ = now;
  const double window =
      std::max(1e-3, std::chrono::duration<double>(options_.bloom_usefulness_window).count());
  const double decay = std::exp(-elapsed / window);

  struct Candidate {
    double usefulness;
    double p_no;
    PagedFilter* filter;
    uint32_t page;
  };
  std::vector<Candidate> candidates;
  for (const auto& filter : filters) {
    const uint32_t count = filter->file().shape().page_count;
    const double filter_no = FilterNo(*filter);
    for (uint32_t p = 0; p < count; ++p) {
      PagedFilter::Page& page = filter->pages_[p];
      page.recent = page.recent * decay + page.requests.exchange(0, std::memory_order_relaxed);
      const double p_no = PageNo(page, filter_no);
      candidates.push_back({page.recent * p_no, p_no, filter.get(), p});
    }
  }
  // Most useful first; with no traffic yet, the pages most likely to say no. Pages with no recent
  // requests still fill whatever budget the busy ones leave free.
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return a.usefulness != b.usefulness ? a.usefulness > b.usefulness : a.p_no > b.p_no;
  });

  uint64_t used = 0;
  const uint64_t budget = options_.bloom_memory_budget;
  std::vector<uint8_t> scratch;
  for (const Candidate& c : candidates) {
    PagedFilter::Page& page = c.filter->pages_[c.page];
    const uint64_t size = c.filter->file().shape().page_bytes;
    const bool keep = used + size <= budget && c.p_no > 0;
    if (keep) {
      if (!page.resident()) {
        if (!c.filter->file().ReadPage(c.page, &scratch).ok()) continue;  // Damaged: stays "maybe".
        page.Load(std::move(scratch));  // ReadPage sizes it afresh.
      }
      used += size;
    } else {
      page.Evict();
    }
  }
  resident_bytes_.store(used);
}

std::vector<BloomPageStats> BloomPager::PageStats() const {
  MutexLock rerank_lock(&rerank_mu_);
  std::vector<std::shared_ptr<PagedFilter>> filters;
  {
    MutexLock lock(&mu_);
    filters = filters_;
  }
  std::vector<BloomPageStats> out;
  for (const auto& filter : filters) {
    const uint32_t count = filter->file().shape().page_count;
    const double filter_no = FilterNo(*filter);
    for (uint32_t p = 0; p < count; ++p) {
      const PagedFilter::Page& page = filter->pages_[p];
      BloomPageStats stats;
      stats.index = filter->index_number();
      stats.page = p;
      stats.recent_requests = page.recent;
      stats.p_no = PageNo(page, filter_no);
      stats.usefulness = stats.recent_requests * stats.p_no;
      stats.resident = page.resident();
      out.push_back(stats);
    }
  }
  return out;
}

void BloomPager::Run() {
  MutexLock lock(&mu_);
  while (!stopping_) {
    const auto deadline = std::chrono::steady_clock::now() + options_.bloom_rerank_interval;
    while (!stopping_ && !rerank_soon_ && wake_.WaitUntil(mu_, deadline)) {
    }
    if (stopping_) break;
    rerank_soon_ = false;
    lock.Unlock();
    Rerank();
    lock.Lock();
  }
}

}  // namespace railyard::storage
