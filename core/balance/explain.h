// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string_view>

#include "core/balance/active_counts.h"
#include "core/balance/policy.h"

namespace railyard::balance {

// The part of every policy's Explanation that flow control knows: each backend seen, its active
// attempts, the cap as its limit, and "at limit" when it is there.
Explanation ExplainActive(std::string_view policy, const ActiveCounts& active);

// Finds or adds `backend` in `explanation` (kept sorted by id) with flow control's defaults.
BackendExplanation& ExplainBackend(Explanation& explanation, const ActiveCounts& active,
                                   BackendId backend);

// For policies without weights of their own: each backend an equal share.
void SetEqualWeights(Explanation& explanation);

// Scales the weights to sum to 1 (leaves all-zero weights alone).
void NormaliseWeights(Explanation& explanation);

}  // namespace railyard::balance
