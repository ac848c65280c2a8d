#include "core/node/auth.h"

namespace railyard::node {

std::string_view AdminRoleName(AdminRole role) {
  switch (role) {
    case AdminRole::kNone:
      return "none";
    case AdminRole::kViewer:
      return "viewer";
    case AdminRole::kOperator:
      return "operator";
  }
  return "none";
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ y);
  }
  return diff == 0;
}

TokenAuthenticator::TokenAuthenticator(std::vector<std::string> viewer_tokens,
                                       std::vector<std::string> operator_tokens)
    : viewers_(std::move(viewer_tokens)), operators_(std::move(operator_tokens)) {}

AdminRole TokenAuthenticator::RoleOf(std::string_view token) const {
  if (token.empty()) return AdminRole::kNone;
  // Check every token so the time taken does not reveal which list matched.
  bool is_operator = false, is_viewer = false;
  for (const std::string& t : operators_) is_operator |= ConstantTimeEquals(t, token);
  for (const std::string& t : viewers_) is_viewer |= ConstantTimeEquals(t, token);
  if (is_operator) return AdminRole::kOperator;
  if (is_viewer) return AdminRole::kViewer;
  return AdminRole::kNone;
}

}  // namespace railyard::node
