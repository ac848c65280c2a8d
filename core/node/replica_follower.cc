// SPDX-License-Identifier: Apache-2.0
#include "core/node/replica_follower.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "core/cluster/replication_names.h"
#include "core/node/replication_lag.h"
#include "core/node/replication_source.h"
#include "core/node/telemetry.h"
#include "railyard/replication.boxcar.h"

namespace railyard::node {

using Clock = std::chrono::steady_clock;

namespace {

// Runtime failures (the updater down, unreachable, draining) pass on their own; the others need
// someone to act (a token, a damaged block, a diverged replica) and are retried slowly.
bool IsTransient(rpc::Code code) {
  return static_cast<int>(code) < 100 && code != rpc::Code::kUnauthenticated;
}

}  // namespace

ReplicaFollower::ReplicaFollower(FollowerOptions options, storage::DocStore& store)
    : options_(std::move(options)), store_(store) {
  rpc::ClientOptions client;
  if (auto endpoint = rpc::ParseEndpoint(options_.updater)) client.servers.push_back(*endpoint);
  client.pool_size = 2;
  // One retry on the other pooled connection rides out a connection the pool just replaced; the
  // follower's own loop retries beyond that, and logs why.
  client.max_retries = 1;
  client.client_name = cluster::FollowerClientName(options_.name);
  client.tls = options_.tls;
  client.retry_budget.reset();
  // One updater: a lower slot on it balances nothing, and a settled follower probing it four
  // times a second cost an updater of 47 replicas about 190 connections a second.
  client.acquirer_backoff_limit = rpc::ClientOptions::kBackoffLimitWhereSlotsBalanceNothing;
  client_ = std::make_unique<rpc::Client>(std::move(client));
}

ReplicaFollower::~ReplicaFollower() { Stop(); }

rpc::Status ReplicaFollower::Start() {
  if (!rpc::ParseEndpoint(options_.updater)) {
    return {rpc::Code::kInvalidArgument,
            "the updater to follow ('" + options_.updater + "') is not host:port"};
  }
  if (rpc::Status s = client_->Start(); !s.ok()) return s;
  {
    base::MutexLock lock(mu_);
    catch_up_from_ = store_.AppliedPosition();
  }
  spdlog::info("{}: replica of {}: resuming at queue position {}", options_.name, options_.updater,
               store_.AppliedPosition());
  thread_ = std::thread([this] { Run(); });
  return rpc::Status::Ok();
}

void ReplicaFollower::Stop() {
  {
    base::MutexLock lock(stop_mu_);
    if (stop_.exchange(true)) return;
  }
  stop_cv_.NotifyAll();
  client_->Stop();  // Ends a fetch waiting at the head.
  if (thread_.joinable()) thread_.join();
}

void ReplicaFollower::Run() {
  // The first fetch waits for a connection rather than reporting the updater down at once.
  ready_clock_ = Clock::now();
  client_->WaitForPool(1, std::chrono::seconds(2));
  while (!stop_.load()) {
    const std::chrono::milliseconds pause = FetchOnce();
    ReportReadiness();
    if (pause.count() == 0) continue;
    base::MutexLock lock(stop_mu_);
    const Clock::time_point until = Clock::now() + pause;
    while (!stop_.load() && stop_cv_.WaitUntil(stop_mu_, until)) {
    }
  }
}

std::chrono::milliseconds ReplicaFollower::FetchOnce() {
  const storage::LogPosition at = store_.QueueEnd();
  repl::FetchRequest request;
  request.set_token(options_.token);
  request.set_follower(options_.name);
  request.set_follower_address(options_.address);
  request.set_segment(at.segment);
  request.set_offset(at.offset);
  request.set_max_bytes(static_cast<uint32_t>(options_.max_chunk_bytes));
  request.set_wait_ms(static_cast<uint32_t>(options_.wait.count()));
  request.set_applied_position(store_.AppliedPosition());
  admin::ReplicaState state_now;
  {
    base::MutexLock lock(mu_);
    state_now = state_;
  }
  request.set_state(std::string(cluster::ReplicaStateName(state_now)));
  {
    base::MutexLock lock(mu_);
    fetch_sent_at_ = Clock::now();
    fetch_in_flight_ = true;
  }
  repl::FetchResponse response;
  rpc::CallResult result = repl::ReplicationService::Stub(*client_).Fetch(
      request, &response, options_.wait + std::chrono::seconds(5));
  {
    base::MutexLock lock(mu_);
    fetch_in_flight_ = false;
  }
  if (stop_.load()) return std::chrono::milliseconds(0);
  if (!result.status.ok()) {
    const rpc::Code code = result.status.code();
    const bool damaged = code == rpc::Code::kCorrupted;
    std::string error = result.status.ToString();
    // Not connected at all: why the last connection failed (refused, a TLS handshake...) is the
    // reason an operator needs.
    if (const std::string why = client_->Snapshot().last_connect_failure;
        !result.server && !why.empty()) {
      error += " (" + why + ")";
    }
    return OnFailure(
        IsTransient(code) ? admin::REPLICA_DISCONNECTED : admin::REPLICA_STOPPED,
        (damaged ? "replication stopped at a damaged block of the updater's queue: " : "") + error);
  }
  const storage::LogPosition start{response.segment(), response.offset()};
  {
    // The answer's figures count before its blocks are applied: an apply that waits on the disk
    // (a write stall) leaves the replica behind a head it knows of, and its lag must say so.
    base::MutexLock lock(mu_);
    head_ = response.head_position();
    answer_end_ = head_ - std::min(head_, response.behind_bytes());
    answer_docs_ = response.blocks_docs();
    // An updater older than first_block_append_unix_us gives only the last block's time.
    answer_first_append_us_ = response.first_block_append_unix_us() > 0
                                  ? response.first_block_append_unix_us()
                                  : response.last_block_append_unix_us();
    if (response.blocks().empty()) answer_first_append_us_ = 0;
    behind_docs_ = response.behind_docs();
    oldest_unsent_us_ = response.oldest_unsent_append_unix_us();
    last_contact_ms_ = UnixMillis(std::chrono::system_clock::now());
  }
  if (!response.blocks().empty()) {
    if (storage::Status s = store_.ApplyQueue(start, response.blocks()); !s.ok()) {
      if (!s.IsCorruption()) return OnFailure(admin::REPLICA_STOPPED, "applying: " + s.ToString());
      base::MutexLock lock(mu_);
      ++refetches_;
      spdlog::warn("{}: a block from {} failed its checksum ({}); fetching it again", options_.name,
                   options_.updater, s.message());
      // The good blocks before it are applied; the next fetch starts at the damaged one.
      return std::chrono::milliseconds(++failures_in_a_row_ > 3 ? 100 : 0);
    }
  }
  const Clock::time_point now = Clock::now();
  apply_rate_.Add(now, static_cast<double>(response.blocks_docs()));
  base::MutexLock lock(mu_);
  const admin::ReplicaState next =
      response.behind_bytes() > 0 ? admin::REPLICA_CATCHING_UP : admin::REPLICA_TAILING;
  if (next != state_) {
    if (next == admin::REPLICA_CATCHING_UP) catch_up_from_ = store_.AppliedPosition();
    spdlog::info("{}: replica of {}: {} at queue position {} (updater's head {})", options_.name,
                 options_.updater, cluster::ReplicaStateName(next), store_.AppliedPosition(),
                 response.head_position());
    state_ = next;
  }
  last_error_.clear();
  failures_in_a_row_ = 0;
  applied_docs_ += response.blocks_docs();
  if (state_ == admin::REPLICA_CATCHING_UP &&
      now - last_progress_log_ >= options_.progress_log_interval) {
    last_progress_log_ = now;
    const uint64_t applied = store_.AppliedPosition();
    const double total = static_cast<double>(head_ - std::min(head_, catch_up_from_));
    spdlog::info("{}: catching up from {}: {:.1f} of {:.1f} MiB ({:.0f}%), {:.0f} docs/s",
                 options_.name, options_.updater, (applied - catch_up_from_) / 1048576.0,
                 total / 1048576.0, total > 0 ? 100.0 * (applied - catch_up_from_) / total : 100.0,
                 apply_rate_.PerSecond(now));
  }
  return std::chrono::milliseconds(0);
}

void ReplicaFollower::ReportReadiness() {
  if (ready_reported_ || !options_.on_ready || stop_.load()) return;
  admin::ReplicaState state;
  uint64_t head = 0;
  {
    base::MutexLock lock(mu_);
    state = state_;
    head = head_;
  }
  const Clock::time_point now = Clock::now();
  const bool answering = state == admin::REPLICA_CATCHING_UP || state == admin::REPLICA_TAILING;
  if (answering) ready_clock_ = now;
  // At the head, and indexed that far (the store indexes what it received on its own thread).
  const bool caught_up =
      state == admin::REPLICA_TAILING &&
      store_.WaitForApplied(
          head, now + std::min(options_.ready_anyway_after, std::chrono::milliseconds(2000)));
  // Stopped on an error that retrying cannot fix: waiting would change nothing.
  const bool stopped = state == admin::REPLICA_STOPPED;
  if (!caught_up && !stopped && (answering || now - ready_clock_ < options_.ready_anyway_after)) {
    return;
  }
  ready_reported_ = true;
  options_.on_ready(caught_up);
}

std::chrono::milliseconds ReplicaFollower::OnFailure(admin::ReplicaState state,
                                                     const std::string& error) {
  base::MutexLock lock(mu_);
  if (state != state_ || error != last_error_) {
    const auto level = state == admin::REPLICA_STOPPED ? spdlog::level::err : spdlog::level::warn;
    spdlog::log(level, "{}: replica of {}: {}: {}", options_.name, options_.updater,
                cluster::ReplicaStateName(state), error);
  }
  state_ = state;
  last_error_ = error;
  const int doublings = std::min(++failures_in_a_row_, 10);
  const auto backoff = std::min<std::chrono::milliseconds>(options_.retry_max,
                                                           options_.retry_min * (1 << doublings));
  // A stopped replica needs someone to act; trying again now and then notices when they have.
  return state == admin::REPLICA_STOPPED ? std::max(backoff, options_.retry_max) : backoff;
}

void ReplicaFollower::FillTelemetry(admin::Replication* out) {
  out->set_role(admin::DOCSTORE_REPLICA);
  out->set_updater(options_.updater);
  const uint64_t applied = store_.AppliedPosition();
  out->set_applied_position(applied);
  out->set_apply_docs_per_s(apply_rate_.PerSecond(Clock::now()));
  base::MutexLock lock(mu_);
  out->set_state(state_);
  out->set_head_position(std::max(head_, applied));
  out->set_applied_docs(applied_docs_);
  // A fetch unanswered for longer than it may wait means the updater is stopped or cut off,
  // whatever its last answer said (the call itself times out only later).
  const Clock::time_point now = Clock::now();
  const bool answering = state_ == admin::REPLICA_TAILING || state_ == admin::REPLICA_CATCHING_UP;
  const bool silent = answering && fetch_in_flight_ &&
                      now - fetch_sent_at_ > options_.wait + kFollowSilenceAllowance;
  if (silent) {
    out->set_state(admin::REPLICA_DISCONNECTED);
    const auto quiet_s = std::chrono::duration_cast<std::chrono::seconds>(now - fetch_sent_at_);
    out->set_last_error("no answer from the updater for " + std::to_string(quiet_s.count()) +
                        " s (a fetch returns within " + std::to_string(options_.wait.count()) +
                        " ms)");
  }
  LagInputs in;
  in.connected = answering && !silent;
  in.head = head_;
  in.applied = applied;
  in.answer_end = answer_end_;
  in.answer_docs = answer_docs_;
  in.answer_first_append_us = answer_first_append_us_;
  in.behind_docs = behind_docs_;
  in.oldest_unsent_us = oldest_unsent_us_;
  in.now_us = NowUnixMicros();
  const ReplicaLag lag = ComputeReplicaLag(in);
  out->set_lag_known(lag.known);
  out->set_lag_bytes(lag.bytes);
  out->set_lag_docs(lag.docs);
  out->set_lag_seconds(lag.seconds);
  if (state_ == admin::REPLICA_CATCHING_UP && head_ > catch_up_from_) {
    out->set_catch_up_progress(
        std::clamp(static_cast<double>(applied - std::min(applied, catch_up_from_)) /
                       static_cast<double>(head_ - catch_up_from_),
                   0.0, 1.0));
  } else if (state_ == admin::REPLICA_TAILING) {
    out->set_catch_up_progress(1.0);
  }
  out->set_refetches(refetches_);
  if (!silent) out->set_last_error(last_error_);
  out->set_last_contact_unix_ms(last_contact_ms_);
}

}  // namespace railyard::node
