// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/mutex.h"

namespace railyard::node {

enum class AdminRole { kNone, kViewer, kOperator };
std::string_view AdminRoleName(AdminRole role);

// Who may use the admin service: viewers read telemetry; operators may also run commands.
// Tokens are compared in constant time and never logged.
//
// Thread safety: every method may be called from any thread; Replace (a reload on SIGHUP) takes
// effect for the requests checked after it.
class TokenAuthenticator {
 public:
  TokenAuthenticator(std::vector<std::string> viewer_tokens,
                     std::vector<std::string> operator_tokens);
  AdminRole RoleOf(std::string_view token) const;
  // With no tokens configured at all, the admin service is open to viewers only.
  bool configured() const;
  void Replace(std::vector<std::string> viewer_tokens, std::vector<std::string> operator_tokens);

 private:
  struct Tokens {
    std::vector<std::string> viewers;
    std::vector<std::string> operators;
  };
  std::shared_ptr<const Tokens> Current() const;

  mutable base::Mutex mu_;
  std::shared_ptr<const Tokens> tokens_ RAILYARD_GUARDED_BY(mu_);
};

// True if `a` and `b` are equal, taking time that depends only on their lengths.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace railyard::node
