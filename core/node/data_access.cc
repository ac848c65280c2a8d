// SPDX-License-Identifier: Apache-2.0
#include "core/node/data_access.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "core/node/auth.h"
#include "railyard/docservice.boxcar.h"
#include "railyard/replication.boxcar.h"

namespace railyard::node {

namespace {

bool HoldsToken(const std::vector<std::string>& tokens, std::string_view presented) {
  // Every token compared, so the time does not say which one matched.
  bool found = false;
  for (const std::string& t : tokens) found |= ConstantTimeEquals(t, presented);
  return found;
}

bool IsRead(std::string_view method) {
  return method == doc::DocService::kGetMethod || method == doc::DocService::kBatchGetMethod;
}

}  // namespace

bool DataAccess::IsDocServiceMethod(std::string_view method) {
  return IsRead(method) || method == doc::DocService::kPutMethod ||
         method == doc::DocService::kDeleteMethod;
}

DataAccess::DataAccess(DataAccessOptions options)
    : certificates_authenticate_(options.certificates_authenticate),
      configured_(!options.reader_tokens.empty() || !options.writer_tokens.empty() ||
                  options.certificates_authenticate),
      throttle_(options.throttle),
      tokens_(std::make_shared<const Tokens>(
          Tokens{std::move(options.reader_tokens), std::move(options.writer_tokens)})) {}

bool DataAccess::configured() const { return configured_; }

std::shared_ptr<const DataAccess::Tokens> DataAccess::Current() const {
  base::MutexLock lock(mu_);
  return tokens_;
}

bool DataAccess::Replace(std::vector<std::string> reader_tokens,
                         std::vector<std::string> writer_tokens) {
  if (!configured_) return false;
  auto tokens =
      std::make_shared<const Tokens>(Tokens{std::move(reader_tokens), std::move(writer_tokens)});
  base::MutexLock lock(mu_);
  tokens_ = std::move(tokens);
  return true;
}

std::string DataAccess::PrincipalOf(const rpc::HelloInfo& hello) {
  if (certificates_authenticate_) return std::string(kWriter);
  if (hello.credentials.empty()) return {};
  const AuthThrottle::Clock::time_point now = AuthThrottle::Clock::now();
  // The token is not even looked at: guessing costs time whatever the guess.
  if (throttle_.LockedFor(hello.peer, now).count() > 0) return std::string(kLockedOut);
  const std::shared_ptr<const Tokens> tokens = Current();
  std::string principal;
  if (HoldsToken(tokens->writers, hello.credentials)) {
    principal = kWriter;
  } else if (HoldsToken(tokens->readers, hello.credentials)) {
    principal = kReader;
  }
  if (!principal.empty()) {
    throttle_.RecordSuccess(hello.peer);
    return principal;
  }
  if (const std::chrono::milliseconds wait = throttle_.RecordFailure(hello.peer, now);
      wait.count() > 0) {
    spdlog::warn("docservice: {} locked out for {} ms after repeated wrong data tokens",
                 AuthThrottle::HostOf(hello.peer), wait.count());
  }
  return std::string(kUnknownToken);
}

rpc::Status DataAccess::Authorize(const rpc::CallContext& call) const {
  // Replication carries its own token in each request (replication_source.h).
  if (!configured() || call.method == repl::ReplicationService::kFetchMethod)
    return rpc::Status::Ok();
  if (call.principal == kWriter || (call.principal == kReader && IsRead(call.method))) {
    return rpc::Status::Ok();
  }
  if (call.principal == kLockedOut) {
    return {rpc::Code::kUnauthenticated,
            "too many wrong data tokens from this host: this connection's hello came while it was "
            "locked out, so its token was not looked at; connect again later"};
  }
  if (call.principal == kReader) {
    return {rpc::Code::kUnauthenticated,
            std::string(call.method) + " needs a writer token; this client's is a reader's"};
  }
  return {
      rpc::Code::kUnauthenticated,
      std::string(call.method) + " needs a token this docservice accepts in the client's hello (" +
          (call.principal == kUnknownToken ? "the one given is none of its reader or writer tokens"
                                           : "none was given") +
          "; railyardctl load --data-token-file, ClientOptions::credentials)"};
}

}  // namespace railyard::node
