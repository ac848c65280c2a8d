// SPDX-License-Identifier: Apache-2.0
#include "core/load/verifying_load.h"

#include <algorithm>
#include <random>

#include "core/base/random.h"
#include "railyard/docservice.boxcar.h"

namespace railyard::load {

using Clock = std::chrono::steady_clock;

namespace {

constexpr size_t kCheckBatch = 128;  // Ids per doc.BatchGet of a check.

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

// Failures that mean the cluster (not the request) is in trouble: the start of an outage.
bool IsOutage(rpc::Code code) {
  return code == rpc::Code::kUnavailable || code == rpc::Code::kDeadlineExceeded ||
         code == rpc::Code::kLameDuck || code == rpc::Code::kPoolExhausted ||
         code == rpc::Code::kCancelled;
}

// Parses "v<version> id<id> ..." back; 0 if the document has no such header.
uint32_t VersionIn(const std::string& doc, uint64_t id) {
  unsigned long long got_id = 0;
  unsigned version = 0;
  if (std::sscanf(doc.c_str(), "v%u id%llu ", &version, &got_id) != 2 || got_id != id) return 0;
  return version;
}

std::unique_ptr<rpc::Client> MakeClient(const VerifyOptions& o, std::vector<rpc::Endpoint> servers,
                                        size_t pool_size, uint64_t seed) {
  rpc::ClientOptions options;
  options.servers = std::move(servers);
  options.pool_size = pool_size;
  options.client_name = o.client_name;
  options.credentials = o.credentials;
  options.tls = o.tls;
  options.connect_timeout = std::chrono::milliseconds(500);
  options.default_timeout = o.call_timeout;
  options.seed = seed;
  return std::make_unique<rpc::Client>(options);
}

}  // namespace

std::string VerifyingLoad::DocumentFor(uint64_t id, uint32_t version, size_t value_size) {
  std::string doc = "v" + std::to_string(version) + " id" + std::to_string(id) + " ";
  uint64_t x = id * 0x9E3779B97F4A7C15ull + version;
  while (doc.size() < value_size) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    doc.push_back(static_cast<char>('a' + x % 26));
  }
  return doc;
}

bool VerifyingLoad::IsDelete(uint64_t id, uint32_t version) {
  return base::MixSeed(id, version) % 8 == 0;
}

VerifyingLoad::VerifyingLoad(VerifyOptions options,
                             std::function<void(const VerifyRound&)> on_round)
    : options_(std::move(options)),
      on_round_(std::move(on_round)),
      ledger_(new Ledger[options_.keys]) {}

VerifyingLoad::~VerifyingLoad() { Stop(); }

rpc::Status VerifyingLoad::Start() {
  std::vector<rpc::Endpoint> serving = options_.readers;
  if (serving.empty()) serving.push_back(options_.updater);
  writes_ = MakeClient(options_, {options_.updater}, std::max(options_.pool_size, options_.writers),
                       options_.seed);
  reads_ = MakeClient(options_, serving, std::max<size_t>(options_.read_threads, 1) + 1,
                      options_.seed + 1);
  for (size_t i = 0; i < serving.size(); ++i) {
    nodes_.push_back(MakeClient(options_, {serving[i]}, 2, options_.seed + 2 + i));
  }
  if (rpc::Status s = writes_->Start(); !s.ok()) return s;
  if (rpc::Status s = reads_->Start(); !s.ok()) return s;
  for (auto& node : nodes_) {
    if (rpc::Status s = node->Start(); !s.ok()) return s;
  }
  if (!writes_->WaitForPool(1, std::chrono::seconds(10))) {
    return {rpc::Code::kUnavailable,
            "the updater " + options_.updater.ToString() + " did not answer within 10 s"};
  }
  // Best effort: a writer finding no idle connection would see POOL_EXHAUSTED, not an outage.
  writes_->WaitForPool(options_.writers, std::chrono::seconds(2));
  reads_->WaitForPool(1, std::chrono::seconds(2));
  for (size_t w = 0; w < options_.writers; ++w) threads_.emplace_back([this, w] { WriterLoop(w); });
  for (size_t r = 0; r < options_.read_threads; ++r) {
    threads_.emplace_back([this, r] { ReaderLoop(r); });
  }
  threads_.emplace_back([this] { VerifierLoop(); });
  return rpc::Status::Ok();
}

void VerifyingLoad::Stop() {
  if (stop_.exchange(true)) return;
  {
    // Under the lock, so the verifier cannot miss it between its check of stop_ and its wait.
    base::MutexLock lock(verify_mu_);
    verify_cv_.NotifyAll();
  }
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  for (auto* client : {&writes_, &reads_}) {
    if (*client) (*client)->Stop();
  }
  for (auto& node : nodes_) node->Stop();
}

void VerifyingLoad::OutageSeen() {
  // Only after something succeeded: failures while the pool is still filling at start-up are not
  // an outage the cluster came back from (and would trigger a check of nothing).
  if (acked_.load() == 0) return;
  int64_t expected = 0;
  outage_since_ns_.compare_exchange_strong(expected, NowNs());
}

void VerifyingLoad::WriterLoop(size_t writer) {
  std::mt19937_64 rng(options_.seed * 1000003 + writer);
  const uint64_t per_writer = (options_.keys - writer + options_.writers - 1) / options_.writers;
  while (!stop_.load()) {
    // Step aside while a check wants the lock: shared_mutex may otherwise starve it forever.
    while (pausing_.load() && !stop_.load())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::shared_lock pause(pause_);
    const uint64_t id = writer + options_.writers * (rng() % per_writer);
    Ledger& entry = ledger_[id];
    const uint32_t version = entry.attempted.load() + 1;
    entry.attempted.store(version);
    const bool deleting = IsDelete(id, version);
    rpc::CallResult result;
    uint64_t position = 0;  // Where the acknowledged write lies in the queue; 0 if unsaid.
    if (deleting) {
      doc::DeleteRequest del;
      del.set_id(id);
      doc::DeleteResponse answer;
      result = doc::DocService::Stub(*writes_).Delete(del, &answer);
      position = answer.position();
    } else {
      doc::PutRequest put;
      put.set_id(id);
      put.set_doc(DocumentFor(id, version, options_.value_size));
      doc::PutResponse answer;
      result = doc::DocService::Stub(*writes_).Put(put, &answer);
      position = answer.position();
    }
    // Deleting what is not there is still done: the document is absent afterwards.
    if (result.status.ok() || (deleting && result.status.code() == rpc::Code::kNotFound)) {
      if (position > entry.acked_position.load()) entry.acked_position.store(position);
      entry.acked.store(version);
      acked_.fetch_add(1);
      if (deleting) deletes_acked_.fetch_add(1);
      int64_t since = outage_since_ns_.exchange(0);
      if (since != 0) {
        base::MutexLock lock(verify_mu_);
        verify_requested_ = true;
        requested_outage_s_ = static_cast<double>(NowNs() - since) / 1e9;
        verify_cv_.NotifyAll();
      }
      continue;
    }
    failed_.fetch_add(1);
    if (IsOutage(result.status.code())) OutageSeen();
    pause.unlock();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // No spinning while down.
  }
}

void VerifyingLoad::ReaderLoop(size_t reader) {
  std::mt19937_64 rng(options_.seed * 7919 + reader);
  // Without replicas every read must see every acknowledged write, position or not.
  const bool updater_alone = options_.readers.empty() || (options_.readers.size() == 1 &&
                                                          options_.readers[0] == options_.updater);
  while (!stop_.load()) {
    const uint64_t id = rng() % options_.keys;
    const Ledger& entry = ledger_[id];
    const uint32_t acked = entry.acked.load();
    const uint64_t position = entry.acked_position.load();
    if (acked == 0 || (position == 0 && !updater_alone)) {
      if (acked_.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;  // No write of it to read back, or no position to hold a replica to.
    }
    doc::GetRequest get;
    get.set_id(id);
    get.set_min_position(position);
    doc::GetResponse response;
    const rpc::CallResult result = doc::DocService::Stub(*reads_).Get(get, &response);
    const bool found = result.status.ok();
    if (!found && result.status.code() != rpc::Code::kNotFound) {
      reads_failed_.fetch_add(1);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    reads_checked_.fetch_add(1);
    // Writes acknowledged since the read was sent are allowed, so judge against now's attempts.
    if (Judge(id, acked, entry.attempted.load(), found, response.doc()) != Verdict::kOk) {
      stale_reads_.fetch_add(1);
    }
  }
}

VerifyingLoad::Verdict VerifyingLoad::Judge(uint64_t id, uint32_t acked, uint32_t attempted,
                                            bool found, const std::string& doc) const {
  if (!found) {
    if (acked == 0) return Verdict::kOk;  // Nothing acknowledged yet.
    for (uint32_t v = acked; v <= attempted; ++v) {
      if (IsDelete(id, v)) return Verdict::kOk;
    }
    return Verdict::kLost;
  }
  const uint32_t version = VersionIn(doc, id);
  if (version == 0 || version > attempted || IsDelete(id, version) ||
      doc != DocumentFor(id, version, options_.value_size)) {
    return Verdict::kWrong;
  }
  return version < acked ? Verdict::kLost : Verdict::kOk;
}

void VerifyingLoad::VerifierLoop() {
  while (!stop_.load()) {
    double outage_s = 0;
    {
      base::MutexLock lock(verify_mu_);
      while (!verify_requested_ && !stop_.load()) verify_cv_.Wait(verify_mu_);
      if (stop_.load()) return;
      verify_requested_ = false;
      outage_s = requested_outage_s_;
    }
    VerifyRound round = VerifyAll();
    round.outage_s = outage_s;
    if (on_round_) on_round_(round);
  }
}

bool VerifyingLoad::VerifyNode(rpc::Client& node, VerifyRound* round) {
  // A node that just came back: its connections come first.
  if (!node.WaitForPool(1, options_.check_timeout)) return false;
  uint64_t next = 0;
  while (next < options_.keys && !stop_.load()) {
    doc::BatchGetRequest batch;
    uint64_t min_position = 0;
    for (; next < options_.keys && static_cast<size_t>(batch.ids_size()) < kCheckBatch; ++next) {
      if (ledger_[next].attempted.load() == 0) continue;
      batch.add_ids(next);
      min_position = std::max(min_position, ledger_[next].acked_position.load());
    }
    if (batch.ids_size() == 0) break;
    // A replica waits until it has applied every acknowledged write of the batch.
    batch.set_min_position(min_position);
    doc::BatchGetResponse response;
    const rpc::CallResult result =
        doc::DocService::Stub(node).BatchGet(batch, &response, options_.check_timeout);
    if (result.status.code() == rpc::Code::kProtocolError) {  // An answer that does not parse.
      round->wrong += static_cast<uint64_t>(batch.ids_size());
      continue;
    }
    if (!result.status.ok()) {
      if (IsOutage(result.status.code())) {
        OutageSeen();
        return false;  // Down again: the next round checks everything anyway.
      }
      // BEHIND: it has not applied those writes within the bound; anything else: unreadable.
      const bool behind = result.status.code() == rpc::Code::kBehind;
      (behind ? round->lost : round->wrong) += static_cast<uint64_t>(batch.ids_size());
      round->checked += static_cast<uint64_t>(batch.ids_size());
      continue;
    }
    for (const doc::BatchGetResponse::Item& item : response.items()) {
      ++round->checked;
      if (item.id() >= options_.keys || !item.error().empty()) {
        ++round->wrong;  // Corrupted or otherwise unreadable: never acceptable.
        continue;
      }
      const Ledger& entry = ledger_[item.id()];
      switch (
          Judge(item.id(), entry.acked.load(), entry.attempted.load(), item.found(), item.doc())) {
        case Verdict::kOk:
          break;
        case Verdict::kLost:
          ++round->lost;
          break;
        case Verdict::kWrong:
          ++round->wrong;
          break;
      }
    }
    if (response.items_size() != batch.ids_size()) {
      round->lost += static_cast<uint64_t>(std::max(0, batch.ids_size() - response.items_size()));
    }
  }
  return !stop_.load();
}

VerifyRound VerifyingLoad::VerifyAll() {
  pausing_.store(true);
  std::unique_lock pause(pause_);  // Writers wait: versions stand still while we read.
  pausing_.store(false);           // They queue on the lock itself from here on.
  VerifyRound round;
  for (auto& node : nodes_) {
    if (!VerifyNode(*node, &round)) {
      round.complete = false;
      break;
    }
    ++round.nodes;
  }
  base::MutexLock lock(report_mu_);
  round.round = ++report_.rounds;
  report_.checked += round.checked;
  report_.lost += round.lost;
  report_.wrong += round.wrong;
  return round;
}

VerifyReport VerifyingLoad::Report() const {
  base::MutexLock lock(report_mu_);
  VerifyReport report = report_;
  report.writes_acked = acked_.load();
  report.writes_failed = failed_.load();
  report.deletes_acked = deletes_acked_.load();
  report.reads_checked = reads_checked_.load();
  report.stale_reads = stale_reads_.load();
  report.reads_failed = reads_failed_.load();
  return report;
}

}  // namespace railyard::load
