#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace railyard::node {

enum class AdminRole { kNone, kViewer, kOperator };
std::string_view AdminRoleName(AdminRole role);

// Who may use the admin service: viewers read telemetry; operators may also run commands.
// Tokens are compared in constant time and never logged.
//
// Thread safety: immutable after construction.
class TokenAuthenticator {
 public:
  TokenAuthenticator(std::vector<std::string> viewer_tokens,
                     std::vector<std::string> operator_tokens);
  AdminRole RoleOf(std::string_view token) const;
  // With no tokens configured at all, the admin service is open to viewers only.
  bool configured() const { return !viewers_.empty() || !operators_.empty(); }

 private:
  std::vector<std::string> viewers_;
  std::vector<std::string> operators_;
};

// True if `a` and `b` are equal, taking time that depends only on their lengths.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace railyard::node
