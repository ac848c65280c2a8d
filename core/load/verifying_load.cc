#include "core/load/verifying_load.h"

#include <random>

#include "railyard/docservice.pb.h"

namespace railyard::load {

using Clock = std::chrono::steady_clock;

namespace {

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

VerifyingLoad::VerifyingLoad(VerifyOptions options,
                             std::function<void(const VerifyRound&)> on_round)
    : options_(std::move(options)),
      on_round_(std::move(on_round)),
      ledger_(new Ledger[options_.keys]) {}

VerifyingLoad::~VerifyingLoad() { Stop(); }

rpc::Status VerifyingLoad::Start() {
  rpc::ClientOptions client_options;
  client_options.servers = options_.servers;
  client_options.pool_size = options_.pool_size;
  client_options.client_name = options_.client_name;
  client_options.connect_timeout = std::chrono::milliseconds(500);
  client_options.default_timeout = options_.call_timeout;
  client_options.seed = options_.seed;
  client_ = std::make_unique<rpc::Client>(client_options);
  if (rpc::Status s = client_->Start(); !s.ok()) return s;
  if (!client_->WaitForPool(1, std::chrono::seconds(10))) {
    return {rpc::Code::kUnavailable, "no server answered within 10 s"};
  }
  for (size_t w = 0; w < options_.writers; ++w) threads_.emplace_back([this, w] { WriterLoop(w); });
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
  if (client_) client_->Stop();
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
    doc::PutRequest put;
    put.set_id(id);
    put.set_doc(DocumentFor(id, version, options_.value_size));
    const rpc::CallResult result = client_->Call("doc.Put", put.SerializeAsString());
    if (result.status.ok()) {
      entry.acked.store(version);
      acked_.fetch_add(1);
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
    if (IsOutage(result.status.code())) {
      int64_t expected = 0;
      outage_since_ns_.compare_exchange_strong(expected, NowNs());
    }
    pause.unlock();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // No spinning while down.
  }
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

VerifyRound VerifyingLoad::VerifyAll() {
  pausing_.store(true);
  std::unique_lock pause(pause_);  // Writers wait: versions stand still while we read.
  pausing_.store(false);           // They queue on the lock itself from here on.
  VerifyRound round;
  for (uint64_t id = 0; id < options_.keys && !stop_.load(); ++id) {
    const uint32_t acked = ledger_[id].acked.load();
    const uint32_t attempted = ledger_[id].attempted.load();
    if (attempted == 0) continue;
    doc::GetRequest get;
    get.set_id(id);
    const rpc::CallResult result = client_->Call("doc.Get", get.SerializeAsString());
    if (!result.status.ok() && result.status.code() != rpc::Code::kNotFound) {
      if (IsOutage(result.status.code())) {
        round.complete = false;  // Down again: the next round checks everything anyway.
        int64_t expected = 0;
        outage_since_ns_.compare_exchange_strong(expected, NowNs());
        break;
      }
      ++round.wrong;  // Corrupted or otherwise unreadable: never acceptable.
      ++round.checked;
      continue;
    }
    ++round.checked;
    if (result.status.code() == rpc::Code::kNotFound) {
      if (acked > 0) ++round.lost;
      continue;
    }
    doc::GetResponse response;
    const uint32_t version =
        response.ParseFromString(result.payload) ? VersionIn(response.doc(), id) : 0;
    if (version == 0 || version > attempted ||
        response.doc() != DocumentFor(id, version, options_.value_size)) {
      ++round.wrong;
    } else if (version < acked) {
      ++round.lost;
    }
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
  return report;
}

}  // namespace railyard::load
