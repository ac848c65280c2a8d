// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace railyard::rpc::internal {

namespace {

Status Invalid(std::string message) { return {Code::kInvalidArgument, std::move(message)}; }

// Checks that a file can be opened, so the error says "cannot read" rather than OpenSSL's words.
Status CheckReadable(const std::string& path, const char* what) {
  if (path.empty()) return Invalid(std::string("no TLS ") + what + " file given");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Invalid(std::string("cannot read TLS ") + what + " file " + path + ": " +
                   std::strerror(errno));
  return Status::Ok();
}

Status UseMinimumVersion(asio::ssl::context& context) {
  if (SSL_CTX_set_min_proto_version(context.native_handle(), TLS1_2_VERSION) != 1) {
    return {Code::kInternal, "OpenSSL refused to set TLS 1.2 as the minimum version"};
  }
  return Status::Ok();
}

// Loads a certificate chain and its key and checks that they belong together.
Status UseCertificateAndKey(asio::ssl::context& context, const std::string& cert_file,
                            const std::string& key_file) {
  if (Status s = CheckReadable(cert_file, "certificate"); !s.ok()) return s;
  if (Status s = CheckReadable(key_file, "private key"); !s.ok()) return s;
  // Key first: a certificate that does not match it then drops it quietly, and the check below
  // says so in words, rather than OpenSSL's "key values mismatch" blamed on the key file.
  asio::error_code ec;
  context.use_private_key_file(key_file, asio::ssl::context::pem, ec);
  if (ec) return Invalid("TLS private key file " + key_file + " is not usable: " + ec.message());
  context.use_certificate_chain_file(cert_file, ec);
  if (ec) return Invalid("TLS certificate file " + cert_file + " is not usable: " + ec.message());
  if (SSL_CTX_check_private_key(context.native_handle()) != 1) {
    ERR_clear_error();
    return Invalid("TLS private key " + key_file + " does not match the certificate in " +
                   cert_file);
  }
  return Status::Ok();
}

Status UseVerifyFile(asio::ssl::context& context, const std::string& ca_file, const char* what) {
  if (Status s = CheckReadable(ca_file, what); !s.ok()) return s;
  asio::error_code ec;
  context.load_verify_file(ca_file, ec);
  if (ec)
    return Invalid(std::string("TLS ") + what + " file " + ca_file +
                   " is not usable: " + ec.message());
  return Status::Ok();
}

bool IsIpAddress(const std::string& host) {
  asio::error_code ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

}  // namespace

Status MakeServerTlsContext(const TlsServerOptions& options,
                            std::unique_ptr<asio::ssl::context>* out) {
  auto context = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
  context->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                       asio::ssl::context::no_sslv3 | asio::ssl::context::single_dh_use);
  if (Status s = UseMinimumVersion(*context); !s.ok()) return s;
  if (Status s = UseCertificateAndKey(*context, options.cert_file, options.key_file); !s.ok())
    return s;
  if (!options.client_ca_file.empty()) {
    if (Status s = UseVerifyFile(*context, options.client_ca_file, "client CA"); !s.ok()) return s;
    // Tell clients which CAs we accept, so one with several certificates picks the right one.
    if (STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(options.client_ca_file.c_str())) {
      SSL_CTX_set_client_CA_list(context->native_handle(), names);
    }
    ERR_clear_error();
    // Resumed sessions keep the verified client identity; OpenSSL requires a context id for that.
    static constexpr unsigned char kSessionContext[] = "railyard";
    SSL_CTX_set_session_id_context(context->native_handle(), kSessionContext,
                                   sizeof(kSessionContext) - 1);
    context->set_verify_mode(asio::ssl::verify_peer |
                             (options.require_client_cert ? asio::ssl::verify_fail_if_no_peer_cert
                                                          : asio::ssl::verify_none));
  }
  *out = std::move(context);
  return Status::Ok();
}

Status MakeClientTlsContext(const TlsClientOptions& options,
                            std::unique_ptr<asio::ssl::context>* out) {
  auto context = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_client);
  context->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                       asio::ssl::context::no_sslv3);
  if (Status s = UseMinimumVersion(*context); !s.ok()) return s;
  if (options.verify_peer) {
    if (options.ca_file.empty()) {
      asio::error_code ec;
      context->set_default_verify_paths(ec);
      if (ec) return Invalid("cannot load the system's trusted CAs: " + ec.message());
    } else if (Status s = UseVerifyFile(*context, options.ca_file, "CA"); !s.ok()) {
      return s;
    }
    context->set_verify_mode(asio::ssl::verify_peer);
  } else {
    context->set_verify_mode(asio::ssl::verify_none);
  }
  if (options.cert_file.empty() != options.key_file.empty()) {
    return Invalid("a TLS client certificate needs both a certificate file and a key file");
  }
  if (!options.cert_file.empty()) {
    if (Status s = UseCertificateAndKey(*context, options.cert_file, options.key_file); !s.ok())
      return s;
  }
  *out = std::move(context);
  return Status::Ok();
}

Status PrepareClientStream(TlsStream& stream, const std::string& server_name, bool verify_peer) {
  SSL* ssl = stream.native_handle();
  const bool ip = IsIpAddress(server_name);
  if (!ip && !server_name.empty() && SSL_set_tlsext_host_name(ssl, server_name.c_str()) != 1) {
    return Invalid("cannot use '" + server_name + "' as the TLS server name");
  }
  if (!verify_peer || server_name.empty()) return Status::Ok();
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
  X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  const int set = ip ? X509_VERIFY_PARAM_set1_ip_asc(param, server_name.c_str())
                     : X509_VERIFY_PARAM_set1_host(param, server_name.c_str(), 0);
  if (set != 1) {
    ERR_clear_error();
    return Invalid("cannot check TLS certificates against '" + server_name + "'");
  }
  return Status::Ok();
}

std::string DescribeTlsError(const asio::error_code& ec, TlsStream& stream) {
  if (ec == asio::error::eof || ec == asio::ssl::error::stream_truncated ||
      ec == asio::error::connection_reset) {
    return "the peer closed the connection during the handshake (it may not speak TLS, or "
           "refused us)";
  }
  std::string text = ec.message();
  const long verify = SSL_get_verify_result(stream.native_handle());
  if (verify != X509_V_OK && ec.category() == asio::error::get_ssl_category()) {
    text += " (";
    text += X509_verify_cert_error_string(verify);
    text += ")";
  }
  return text;
}

bool LooksLikeTlsRecord(const std::array<unsigned char, kFrameHeaderBytes>& header) {
  // Content type handshake (22) or alert (21), then major version 3.
  return (header[0] == 0x16 || header[0] == 0x15) && header[1] == 0x03;
}

}  // namespace railyard::rpc::internal

namespace railyard::rpc {

std::string DescribeServerTls(const std::optional<TlsServerOptions>& options) {
  if (!options) return "plain TCP";
  if (options->client_ca_file.empty()) return "TLS";
  return options->require_client_cert ? "TLS with client certificates"
                                      : "TLS, client certificates optional";
}

}  // namespace railyard::rpc
