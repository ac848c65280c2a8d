// SPDX-License-Identifier: Apache-2.0
#pragma once

// TLS settings for a Boxcar listener or client (PEM files, TLS 1.2 or newer).

#include <optional>
#include <string>

namespace railyard::rpc {

// A listener that speaks only TLS. Server::Start fails with a message naming the file if a file
// cannot be read, is not PEM, or the key does not belong to the certificate.
struct TlsServerOptions {
  std::string cert_file;  // Certificate chain, the listener's own certificate first.
  std::string key_file;   // Its private key (unencrypted).
  // Set: clients are asked for a certificate, which must chain to one of these CAs.
  std::string client_ca_file;
  // With client_ca_file: a client without a certificate is refused (mutual TLS). False: a client
  // may go without one, but one it presents must still verify.
  bool require_client_cert = true;
};

// "plain TCP", "TLS", "TLS with client certificates" or "TLS, client certificates optional", for
// logs.
std::string DescribeServerTls(const std::optional<TlsServerOptions>& options);

// A client that speaks TLS to every server in its list. Client::Start fails with a message naming
// the file if a file cannot be read or the key does not belong to the certificate.
struct TlsClientOptions {
  // CAs that the server's certificate must chain to; empty: the system's trusted CAs.
  std::string ca_file;
  // Off only for tests and for people who know why: without it TLS stops no one in the middle.
  bool verify_peer = true;
  // The name the server's certificate must carry (a DNS name or an IP address); empty: the host
  // of the endpoint being connected to.
  std::string server_name;
  // A client certificate and its key, for servers that ask for one. Both or neither.
  std::string cert_file;
  std::string key_file;
};

}  // namespace railyard::rpc
