// SPDX-License-Identifier: Apache-2.0
#include "tests/cluster/tls_admin_fixture.h"

namespace railyard::testing {

TlsAdminFixture::TlsAdminFixture(const std::string& dir)
    : files_(rpc::testing::MakeTlsTestFiles(dir)) {
  node::AdminOptions options;
  options.name = kTlsNodeName;
  options.viewer_tokens = {kTlsViewerToken};
  options.tls = rpc::TlsServerOptions{};
  options.tls->cert_file = files_.server_cert;
  options.tls->key_file = files_.server_key;
  options.tls->client_ca_file = files_.ca_cert;
  options.tls->require_client_cert = true;
  service_ = std::make_unique<node::AdminService>(
      options,
      [] {
        admin::Telemetry t;
        t.set_node(kTlsNodeName);
        t.set_service_address(kTlsServiceMarker);
        t.set_state(admin::NODE_SERVING);
        t.set_unix_ms(std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count());
        return t;
      },
      node::AdminCommands{});
  started_ = service_->Start();
}

rpc::TlsClientOptions TlsAdminFixture::GoodClient() const {
  rpc::TlsClientOptions tls;
  tls.ca_file = files_.ca_cert;
  tls.cert_file = files_.client_cert;
  tls.key_file = files_.client_key;
  return tls;
}

rpc::TlsClientOptions TlsAdminFixture::WrongCaClient() const {
  rpc::TlsClientOptions tls = GoodClient();
  tls.ca_file = files_.other_ca_cert;
  return tls;
}

cluster::TlsFlags TlsAdminFixture::FlagsFor(const rpc::TlsClientOptions& tls) {
  cluster::TlsFlags flags;
  flags.ca_file = tls.ca_file;
  flags.cert_file = tls.cert_file;
  flags.key_file = tls.key_file;
  return flags;
}

}  // namespace railyard::testing
