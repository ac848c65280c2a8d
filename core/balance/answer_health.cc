// SPDX-License-Identifier: Apache-2.0
#include "core/balance/answer_health.h"

namespace railyard::balance {

bool AnswerHealth::Record(Result result) {
  switch (result) {
    case Result::kSuccess:
      consecutive_errors_ = 0;
      break;
    case Result::kError:
      ++consecutive_errors_;
      break;
    case Result::kTimeout:
    case Result::kRejected:
    case Result::kIgnored:
      break;
  }
  return limit_ > 0 && consecutive_errors_ >= limit_;
}

}  // namespace railyard::balance
