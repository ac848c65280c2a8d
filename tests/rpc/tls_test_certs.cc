// SPDX-License-Identifier: Apache-2.0
#include "tests/rpc/tls_test_certs.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <memory>
#include <stdexcept>

namespace railyard::rpc::testing {

namespace {

struct KeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct CertFree {
  void operator()(X509* cert) const { X509_free(cert); }
};
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;
using Cert = std::unique_ptr<X509, CertFree>;

void Check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("making test certificates: ") + what);
}

Key NewKey() {
  // P-256: quick to generate, unlike RSA.
  Key key(EVP_EC_gen("P-256"));
  Check(key != nullptr, "EC key generation");
  return key;
}

void AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  Check(ext != nullptr, value);
  Check(X509_add_ext(cert, ext, -1) == 1, "adding an extension");
  X509_EXTENSION_free(ext);
}

// Signs a certificate for `key` named `common_name`, by `issuer` (null: self-signed).
Cert MakeCert(EVP_PKEY* key, const char* common_name, X509* issuer, EVP_PKEY* issuer_key,
              bool is_ca, const char* alt_names, const char* usage, long serial) {
  Cert cert(X509_new());
  Check(cert != nullptr, "X509_new");
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), serial);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 24L * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("Railyard tests"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(common_name), -1, -1, 0);
  X509* signer = issuer ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  AddExtension(cert.get(), signer, NID_subject_key_identifier, "hash");
  if (issuer) AddExtension(cert.get(), signer, NID_authority_key_identifier, "keyid:always");
  if (is_ca) {
    AddExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE");
    AddExtension(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else {
    AddExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE");
    AddExtension(cert.get(), signer, NID_key_usage, "critical,digitalSignature");
    AddExtension(cert.get(), signer, NID_ext_key_usage, usage);
  }
  if (alt_names) AddExtension(cert.get(), signer, NID_subject_alt_name, alt_names);
  Check(X509_sign(cert.get(), issuer_key ? issuer_key : key, EVP_sha256()) > 0, "signing");
  return cert;
}

void WriteCert(const std::string& path, X509* cert) {
  FILE* f = std::fopen(path.c_str(), "w");
  Check(f != nullptr, "opening a certificate file");
  const bool ok = PEM_write_X509(f, cert) == 1;
  std::fclose(f);
  Check(ok, "writing a certificate");
}

void WriteKey(const std::string& path, EVP_PKEY* key) {
  FILE* f = std::fopen(path.c_str(), "w");
  Check(f != nullptr, "opening a key file");
  const bool ok = PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr) == 1;
  std::fclose(f);
  Check(ok, "writing a key");
}

}  // namespace

TlsTestFiles MakeTlsTestFiles(const std::string& dir) {
  TlsTestFiles files;
  const auto at = [&dir](const char* name) { return dir + "/" + name; };
  files.ca_cert = at("ca.pem");
  files.other_ca_cert = at("other-ca.pem");
  files.server_cert = at("server.pem");
  files.server_key = at("server.key");
  files.client_cert = at("client.pem");
  files.client_key = at("client.key");
  files.stranger_client_cert = at("stranger.pem");
  files.stranger_client_key = at("stranger.key");
  files.rogue_server_cert = at("rogue.pem");
  files.rogue_server_key = at("rogue.key");

  const Key ca_key = NewKey();
  const Cert ca =
      MakeCert(ca_key.get(), "Railyard test CA", nullptr, nullptr, true, nullptr, nullptr, 1);
  const Key other_ca_key = NewKey();
  const Cert other_ca =
      MakeCert(other_ca_key.get(), "Another test CA", nullptr, nullptr, true, nullptr, nullptr, 2);
  const Key server_key = NewKey();
  const Cert server = MakeCert(server_key.get(), "localhost", ca.get(), ca_key.get(), false,
                               "IP:127.0.0.1,DNS:localhost", "serverAuth", 3);
  const Key client_key = NewKey();
  const Cert client = MakeCert(client_key.get(), "test-client", ca.get(), ca_key.get(), false,
                               nullptr, "clientAuth", 4);
  const Key stranger_key = NewKey();
  const Cert stranger = MakeCert(stranger_key.get(), "stranger", other_ca.get(), other_ca_key.get(),
                                 false, nullptr, "clientAuth", 5);
  const Key rogue_key = NewKey();
  const Cert rogue = MakeCert(rogue_key.get(), "localhost", nullptr, nullptr, false,
                              "IP:127.0.0.1,DNS:localhost", "serverAuth", 6);

  WriteCert(files.ca_cert, ca.get());
  WriteCert(files.other_ca_cert, other_ca.get());
  WriteCert(files.server_cert, server.get());
  WriteKey(files.server_key, server_key.get());
  WriteCert(files.client_cert, client.get());
  WriteKey(files.client_key, client_key.get());
  WriteCert(files.stranger_client_cert, stranger.get());
  WriteKey(files.stranger_client_key, stranger_key.get());
  WriteCert(files.rogue_server_cert, rogue.get());
  WriteKey(files.rogue_server_key, rogue_key.get());
  return files;
}

}  // namespace railyard::rpc::testing
