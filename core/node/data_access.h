// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/mutex.h"
#include "core/node/auth_throttle.h"
#include "core/rpc/server.h"
#include "core/rpc/status.h"

namespace railyard::node {

struct DataAccessOptions {
  // A client presents one of these in its Boxcar hello (ClientOptions::credentials).
  std::vector<std::string> reader_tokens;  // doc.Get and doc.BatchGet.
  std::vector<std::string> writer_tokens;  // Every docservice method.
  // The listener requires client certificates (tls.client_ca_file): a client whose certificate
  // it verified is a writer without a token.
  bool certificates_authenticate = false;
  // Token guessing: after a few wrong tokens from one host, its hellos are not even looked at
  // for a while (AuthThrottle, as the admin service's); an empty token is no guess.
  AuthThrottle::Options throttle;
};

// Who may use the docservice. With no token configured (and no client certificates required) it
// is open to anyone who can reach it, as before: meant for loopback. Configured, a client without
// a token it accepts is anonymous, and every call it makes is answered UNAUTHENTICATED with the
// reason (a reader's writes too). repl.Fetch keeps its own replication token (replication.proto)
// and is let through here. Tokens are compared in constant time and never logged.
//
// Thread safety: every method may be called from any thread; Replace (a reload on SIGHUP) takes
// effect for the connections that say hello after it (a connection keeps the principal it got).
class DataAccess {
 public:
  static constexpr std::string_view kReader = "reader";
  static constexpr std::string_view kWriter = "writer";
  // A client whose token is none of these: anonymous, told so apart from one that gave none.
  static constexpr std::string_view kUnknownToken = "unknown-token";
  // A client whose host was locked out when it said hello (too many wrong tokens): its token was
  // not looked at, and every call on that connection is refused.
  static constexpr std::string_view kLockedOut = "locked-out";

  explicit DataAccess(DataAccessOptions options);

  bool configured() const;
  // doc.Get, doc.BatchGet, doc.Put or doc.Delete.
  static bool IsDocServiceMethod(std::string_view method);
  // For rpc::ServerOptions::authenticate: kWriter, kReader, kUnknownToken, kLockedOut or "" (no
  // token). A writer token wins over a reader one; on a listener that requires client
  // certificates every client that got through its TLS handshake is a writer. A wrong token
  // counts against the hello's host, a right one clears its record.
  std::string PrincipalOf(const rpc::HelloInfo& hello);
  // For rpc::ServerOptions::authorize.
  rpc::Status Authorize(const rpc::CallContext& call) const;
  // The reader and writer tokens from now on; certificates_authenticate stays. Refused (false)
  // where the node started without data access configured: its server checks no call, so tokens
  // added now would mean nothing until a restart.
  bool Replace(std::vector<std::string> reader_tokens, std::vector<std::string> writer_tokens);

 private:
  struct Tokens {
    std::vector<std::string> readers;
    std::vector<std::string> writers;
  };
  std::shared_ptr<const Tokens> Current() const;

  const bool certificates_authenticate_;
  const bool configured_;  // Fixed at construction: whether the server checks calls at all.
  AuthThrottle throttle_;
  mutable base::Mutex mu_;
  std::shared_ptr<const Tokens> tokens_ RAILYARD_GUARDED_BY(mu_);
};

}  // namespace railyard::node
