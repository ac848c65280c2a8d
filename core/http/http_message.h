// SPDX-License-Identifier: Apache-2.0
#pragma once

// Parsing an HTTP/1.x request head and writing a response: the byte-level half of HttpServer,
// kept apart so it can be tested without sockets.

#include <string>
#include <string_view>

#include "core/http/http_server.h"

namespace railyard::http {

// Parses the request line and headers (everything before the blank line, CRLF or LF line ends).
// Returns false with `*error` set to a one-line reason for anything malformed: not
// `METHOD SP target SP HTTP/1.x`, a target that is not an absolute path, a header line without
// ':', control characters. Fills method, path, query and authorization; not peer.
bool ParseRequestHead(std::string_view head, HttpRequest* out, std::string* error);

// Status line, Content-Type, Content-Length, Connection: close, the extra headers, then the body
// (left out for HEAD, whose Content-Length still gives the body's length).
std::string SerializeResponse(const HttpResponse& response, bool head_only);

}  // namespace railyard::http
