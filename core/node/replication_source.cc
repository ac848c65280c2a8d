// SPDX-License-Identifier: Apache-2.0
#include "core/node/replication_source.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

#include "core/node/auth.h"
#include "core/node/doc_service.h"
#include "core/node/replication_lag.h"
#include "core/node/telemetry.h"
#include "railyard/replication.pb.h"

namespace railyard::node {

using Clock = std::chrono::steady_clock;

int64_t NowUnixMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

namespace {

double SecondsSince(int64_t unix_us) {
  return unix_us == 0 ? 0.0 : std::max<double>(0, (NowUnixMicros() - unix_us) / 1e6);
}

// Lame duck must not hold a follower past the caller's deadline: leave room for the answer.
Clock::time_point WaitDeadline(const rpc::CallContext& call, std::chrono::milliseconds wait) {
  const Clock::time_point by_wait = Clock::now() + wait;
  if (call.deadline == Clock::time_point::max()) return by_wait;
  return std::min(by_wait, call.deadline - std::chrono::milliseconds(100));
}

}  // namespace

ReplicationSource::ReplicationSource(ReplicationSourceOptions options, storage::DocStore& store,
                                     std::string name)
    : options_(std::move(options)),
      store_(store),
      name_(std::move(name)),
      throttle_(options_.throttle),
      corrupt_left_(options_.corrupt_first_sends) {}

void ReplicationSource::Register(rpc::Server& server, base::MethodStats& stats) {
  repl::ReplicationService::RegisterOptions options;
  options.on_done = [&stats](std::string_view method, std::chrono::nanoseconds elapsed,
                             const rpc::Status& status) {
    stats.Record(std::string(method), elapsed, base::IsFailure(status.code()), status.code());
  };
  repl::ReplicationService::Register(server, *this, std::move(options));
}

rpc::Status ReplicationSource::Authorize(const rpc::CallContext& call, const std::string& token,
                                         const std::string& follower) {
  const std::string who = "follower '" + follower + "' from " + std::string(call.peer);
  if (options_.client_certificates_authenticate && token.empty()) return rpc::Status::Ok();
  if (options_.tokens.empty()) {
    spdlog::warn("{}: refused {}: replication is not enabled here", name_, who);
    return {rpc::Code::kFailedPrecondition,
            "replication is not enabled on updater " + name_ +
                ": give it a replication_token_file (--replication-token-file), or require client "
                "certificates on its docservice listener (tls.client_ca_file)"};
  }
  const std::string host = AuthThrottle::HostOf(call.peer);
  if (const auto wait = throttle_.LockedFor(host, Clock::now()); wait.count() > 0) {
    return {rpc::Code::kUnauthenticated, "too many wrong replication tokens from " + host +
                                             "; try again in " + std::to_string(wait.count()) +
                                             " ms"};
  }
  const bool good = std::any_of(options_.tokens.begin(), options_.tokens.end(),
                                [&](const std::string& t) { return ConstantTimeEquals(t, token); });
  if (!good) {
    throttle_.RecordFailure(host, Clock::now());
    spdlog::warn("{}: refused {}: {} replication token", name_, who,
                 token.empty() ? "no" : "a wrong");
    return {rpc::Code::kUnauthenticated,
            std::string(token.empty() ? "no replication token given"
                                      : "the replication token is not accepted") +
                " by updater " + name_ + " (the replica's replication_token_file must hold one " +
                "of the updater's tokens)"};
  }
  throttle_.RecordSuccess(host);
  return rpc::Status::Ok();
}

rpc::Status ReplicationSource::Fetch(const rpc::CallContext& call,
                                     const repl::FetchRequest& request,
                                     repl::FetchResponse* response) {
  if (rpc::Status s = Authorize(call, request.token(), request.follower()); !s.ok()) return s;
  const storage::LogPosition from{request.segment(), request.offset()};
  const auto wait = std::min<std::chrono::milliseconds>(
      options_.max_wait, std::chrono::milliseconds(request.wait_ms()));
  RecordFollower(call, request, wait);
  if (wait.count() > 0) store_.WaitForQueuePast(from, WaitDeadline(call, wait));

  storage::QueueChunk chunk;
  const size_t max_bytes = std::clamp<size_t>(request.max_bytes(), 4096, options_.max_chunk_bytes);
  if (storage::Status s = store_.ReadQueue(from, max_bytes, &chunk); !s.ok()) {
    if (s.IsCorruption()) {
      spdlog::error("{}: replication to '{}' stopped: {}", name_, request.follower(), s.ToString());
      return {rpc::Code::kCorrupted, "updater " + name_ + ": " + s.message()};
    }
    spdlog::warn("{}: follower '{}' asked for segment {} offset {}: {}", name_, request.follower(),
                 from.segment, from.offset, s.ToString());
    return {rpc::Code::kFailedPrecondition,
            "the replica has diverged from updater " + name_ + ": " + s.message()};
  }
  if (!chunk.blocks.empty() && corrupt_left_.load() > 0 && corrupt_left_.fetch_sub(1) > 0) {
    chunk.blocks[chunk.blocks.size() / 2] ^= 0x20;  // The test fault: damage in transit.
  }
  const storage::LogPosition after{chunk.start.segment, chunk.start.offset + chunk.blocks.size()};
  const storage::QueueLag lag = store_.LagOf(after);
  response->set_segment(chunk.start.segment);
  response->set_offset(chunk.start.offset);
  response->set_head_position(lag.head);
  response->set_behind_bytes(lag.bytes);
  response->set_behind_docs(lag.entries);
  response->set_oldest_unsent_append_unix_us(lag.oldest_unsent_append_unix_us);
  if (!chunk.blocks.empty()) {
    // The oldest write in this answer: the oldest one not sent before it.
    response->set_first_block_append_unix_us(
        store_.LagOf(chunk.start).oldest_unsent_append_unix_us);
    response->set_last_block_append_unix_us(chunk.last_append_unix_us);
  }
  response->set_blocks_docs(chunk.entries);
  *response->mutable_blocks() = std::move(chunk.blocks);
  return rpc::Status::Ok();
}

void ReplicationSource::RecordFollower(const rpc::CallContext& call,
                                       const repl::FetchRequest& request,
                                       std::chrono::milliseconds wait) {
  FollowerEntry entry;
  admin::Follower& follower = entry.shown;
  follower.set_name(request.follower().empty() ? std::string(call.peer) : request.follower());
  follower.set_address(request.follower_address());
  follower.set_peer(std::string(call.peer));
  follower.set_state(request.state());
  follower.set_last_fetch_unix_ms(UnixMillis(std::chrono::system_clock::now()));
  entry.client_id = call.client_id;
  entry.position = {request.segment(), request.offset()};
  entry.wait = wait;
  entry.fetched_at = Clock::now();
  base::MutexLock lock(mu_);
  followers_[follower.name()] = std::move(entry);
}

void ReplicationSource::FillTelemetry(const std::vector<rpc::SlotInfo>& connections,
                                      admin::Replication* out) {
  out->set_role(admin::DOCSTORE_UPDATER);
  const uint64_t head = store_.AppliedPosition();
  out->set_head_position(head);
  out->set_applied_position(head);
  std::set<uint64_t> connected;
  for (const rpc::SlotInfo& slot : connections) connected.insert(slot.client_id);
  const Clock::time_point now = Clock::now();
  base::MutexLock lock(mu_);
  for (auto it = followers_.begin(); it != followers_.end();) {
    const FollowerEntry& entry = it->second;
    if (!connected.contains(entry.client_id)) {
      spdlog::info("{}: follower '{}' left (its connections closed)", name_, it->first);
      it = followers_.erase(it);
      continue;
    }
    admin::Follower* f = out->add_followers();
    *f = entry.shown;
    f->set_position(store_.QueuePositionOf(entry.position));
    if (now - entry.fetched_at > entry.wait + kFollowSilenceAllowance) {
      const auto quiet_s = std::chrono::duration_cast<std::chrono::seconds>(now - entry.fetched_at);
      f->set_state("silent for " + std::to_string(quiet_s.count()) + " s");
    } else {
      // As of now: the head may have moved since the follower's last fetch.
      const storage::QueueLag lag = store_.LagOf(entry.position);
      f->set_lag_known(true);
      f->set_lag_bytes(lag.bytes);
      f->set_lag_docs(lag.entries);
      f->set_lag_seconds(lag.bytes == 0 ? 0 : SecondsSince(lag.oldest_unsent_append_unix_us));
    }
    ++it;
  }
}

}  // namespace railyard::node
