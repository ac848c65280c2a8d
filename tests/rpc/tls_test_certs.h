// SPDX-License-Identifier: Apache-2.0
#pragma once

// Self-signed certificates made at test time with OpenSSL, so no test depends on files that
// expire or on the machine's trust store.

#include <string>

namespace railyard::rpc::testing {

// PEM files written into one folder. `ca` signed `server` (for 127.0.0.1 and localhost) and
// `client`; `other_ca` signed `stranger_client`; `rogue_server` is self-signed (no CA trusts it).
struct TlsTestFiles {
  std::string ca_cert;
  std::string other_ca_cert;
  std::string server_cert, server_key;
  std::string client_cert, client_key;
  std::string stranger_client_cert, stranger_client_key;
  std::string rogue_server_cert, rogue_server_key;
};

// Writes the files into `dir` (which must exist). Throws std::runtime_error if OpenSSL fails.
TlsTestFiles MakeTlsTestFiles(const std::string& dir);

}  // namespace railyard::rpc::testing
