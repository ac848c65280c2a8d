// SPDX-License-Identifier: Apache-2.0
#pragma once

// An admin service whose listener requires TLS with a client certificate, answering telemetry
// for a made-up node, with the certificates (made at test time) that reach it and that do not.

#include <memory>
#include <string>

#include "core/cluster/access.h"
#include "core/node/admin_service.h"
#include "core/rpc/tls.h"
#include "tests/rpc/tls_test_certs.h"

namespace railyard::testing {

inline constexpr char kTlsNodeName[] = "tls-admin";
inline constexpr char kTlsServiceMarker[] = "svc-behind-tls:9";  // Its telemetry's service address.
inline constexpr char kTlsViewerToken[] = "tls-viewer-secret";

class TlsAdminFixture {
 public:
  // Writes the certificates into `dir` (which must exist) and starts the service on
  // 127.0.0.1:<any>. started() tells whether it came up.
  explicit TlsAdminFixture(const std::string& dir);

  rpc::Status started() const { return started_; }
  rpc::Endpoint endpoint() const { return service_->endpoint(); }
  std::string address() const { return endpoint().ToString(); }
  const rpc::testing::TlsTestFiles& files() const { return files_; }
  // The CA and a client certificate the service accepts.
  rpc::TlsClientOptions GoodClient() const;
  // A client that trusts another CA: the server's certificate does not verify.
  rpc::TlsClientOptions WrongCaClient() const;
  // The --tls-ca/--tls-cert/--tls-key flags that ask for `tls`.
  static cluster::TlsFlags FlagsFor(const rpc::TlsClientOptions& tls);

 private:
  rpc::testing::TlsTestFiles files_;
  std::unique_ptr<node::AdminService> service_;
  rpc::Status started_;
};

}  // namespace railyard::testing
