// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to core/rpc: OpenSSL contexts built from TlsServerOptions / TlsClientOptions, and the
// words for what went wrong in a handshake.

#include <array>
#include <asio.hpp>
#include <asio/ssl.hpp>
#include <memory>
#include <string>

#include "core/rpc/frame.h"
#include "core/rpc/status.h"
#include "core/rpc/tls.h"

namespace railyard::rpc::internal {

using TlsStream = asio::ssl::stream<asio::ip::tcp::socket>;

// Both return INVALID_ARGUMENT naming the file at fault, or OK with `*out` set. The contexts
// allow TLS 1.2 and newer only.
Status MakeServerTlsContext(const TlsServerOptions& options,
                            std::unique_ptr<asio::ssl::context>* out);
Status MakeClientTlsContext(const TlsClientOptions& options,
                            std::unique_ptr<asio::ssl::context>* out);

// Before a client handshake: sends `server_name` as SNI (unless it is an IP address) and, when
// peers are verified, makes the certificate check require that name or address.
Status PrepareClientStream(TlsStream& stream, const std::string& server_name, bool verify_peer);

// `ec` from a handshake, with the certificate verification result when that is what failed.
std::string DescribeTlsError(const asio::error_code& ec, TlsStream& stream);

// True if a frame header is really the start of a TLS record (handshake or alert): the peer
// speaks TLS where plain Boxcar was expected.
bool LooksLikeTlsRecord(const std::array<unsigned char, kFrameHeaderBytes>& header);

}  // namespace railyard::rpc::internal
