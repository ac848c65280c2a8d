// SPDX-License-Identifier: Apache-2.0
// The monitoring listener's request-head parser, which reads whatever a network peer sends: it
// must never crash or read out of bounds, and what it accepts is a GET-able path.
#include <string_view>

#include "core/http/http_message.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace railyard::http;
  HttpRequest request;
  std::string error;
  const std::string_view head(reinterpret_cast<const char*>(data), size);
  if (ParseRequestHead(head, &request, &error)) {
    if (request.path.empty() || request.path.front() != '/') __builtin_trap();
    HttpResponse response;
    response.body = request.path;
    (void)SerializeResponse(response, request.method == "HEAD");
  } else if (error.empty()) {
    __builtin_trap();  // A refusal always says why.
  }
  return 0;
}
