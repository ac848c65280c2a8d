// SPDX-License-Identifier: Apache-2.0
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
                                       std::vector<std::string> operator_tokens) {
  Replace(std::move(viewer_tokens), std::move(operator_tokens));
}

void TokenAuthenticator::Replace(std::vector<std::string> viewer_tokens,
                                 std::vector<std::string> operator_tokens) {
  auto next =
      std::make_shared<const Tokens>(Tokens{std::move(viewer_tokens), std::move(operator_tokens)});
  base::MutexLock lock(mu_);
  tokens_ = std::move(next);
}

std::shared_ptr<const TokenAuthenticator::Tokens> TokenAuthenticator::Current() const {
  base::MutexLock lock(mu_);
  return tokens_;
}

bool TokenAuthenticator::configured() const {
  const std::shared_ptr<const Tokens> tokens = Current();
  return !tokens->viewers.empty() || !tokens->operators.empty();
}

AdminRole TokenAuthenticator::RoleOf(std::string_view token) const {
  if (token.empty()) return AdminRole::kNone;
  const std::shared_ptr<const Tokens> tokens = Current();
  // Check every token so the time taken does not reveal which list matched.
  bool is_operator = false, is_viewer = false;
  for (const std::string& t : tokens->operators) is_operator |= ConstantTimeEquals(t, token);
  for (const std::string& t : tokens->viewers) is_viewer |= ConstantTimeEquals(t, token);
  if (is_operator) return AdminRole::kOperator;
  if (is_viewer) return AdminRole::kViewer;
  return AdminRole::kNone;
}

}  // namespace railyard::node
