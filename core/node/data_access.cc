// SPDX-License-Identifier: Apache-2.0
#include "core/node/data_access.h"

#include <algorithm>
#include <utility>

#include "core/node/auth.h"

namespace railyard::node {

namespace {

bool HoldsToken(const std::vector<std::string>& tokens, std::string_view presented) {
  // Every token compared, so the time does not say which one matched.
  bool found = false;
  for (const std::string& t : tokens) found |= ConstantTimeEquals(t, presented);
  return found;
}

bool IsRead(std::string_view method) { return method == "doc.Get" || method == "doc.BatchGet"; }

}  // namespace

bool DataAccess::IsDocServiceMethod(std::string_view method) {
  return IsRead(method) || method == "doc.Put" || method == "doc.Delete";
}

DataAccess::DataAccess(DataAccessOptions options) : options_(std::move(options)) {}

bool DataAccess::configured() const {
  return !options_.reader_tokens.empty() || !options_.writer_tokens.empty() ||
         options_.certificates_authenticate;
}

std::string DataAccess::PrincipalOf(const rpc::HelloInfo& hello) const {
  if (options_.certificates_authenticate) return std::string(kWriter);
  if (hello.credentials.empty()) return {};
  if (HoldsToken(options_.writer_tokens, hello.credentials)) return std::string(kWriter);
  if (HoldsToken(options_.reader_tokens, hello.credentials)) return std::string(kReader);
  return std::string(kUnknownToken);
}

rpc::Status DataAccess::Authorize(const rpc::CallContext& call) const {
  if (!configured() || call.method == "repl.Fetch") return rpc::Status::Ok();
  if (call.principal == kWriter || (call.principal == kReader && IsRead(call.method))) {
    return rpc::Status::Ok();
  }
  if (call.principal == kReader) {
    return {rpc::Code::kUnauthenticated,
            std::string(call.method) + " needs a writer token; this client's is a reader's"};
  }
  return {
      rpc::Code::kUnauthenticated,
      std::string(call.method) + " needs a token this docservice accepts in the client's hello (" +
          (call.principal == kUnknownToken ? "the one given is none of its reader or writer tokens"
                                           : "none was given") +
          "; railyardctl load --data-token-file, ClientOptions::credentials)"};
}

}  // namespace railyard::node
