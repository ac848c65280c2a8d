// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/balance/policy.h"

namespace railyard::balance {

// Which backends a client connects to at all (the SRE chapter's subsetting).
enum class SubsetMode {
  kNone,           // Every backend.
  kRandom,         // A random sample per client.
  kDeterministic,  // Rounds of shuffled backends; a client takes its position in its round.
};

std::optional<SubsetMode> ParseSubsetMode(std::string_view name);  // none, random, deterministic
std::string_view SubsetModeName(SubsetMode mode);

// The SRE chapter's algorithm: subset_count = backends / subset_size; round = client_id /
// subset_count; shuffle 0..backends-1 with a seed derived from the round; take positions
// [k * subset_size, (k + 1) * subset_size) with k = client_id % subset_count. When subset_size
// does not divide the backend count, the leftover backends of each round's shuffle go to the
// round's clients in turn, so every backend's client count differs by at most one.
// Returns backend ids; subset_size >= backends gives every backend.
// (Implementation notes: ids come back sorted; subset_size 0 also gives every backend; with
// subset_size > backends / 2 a round has one client, which then takes every backend; the round's
// seed is fixed by the round alone, so every process computes the same subsets.)
std::vector<BackendId> DeterministicSubset(uint64_t client_id, size_t backend_count,
                                           size_t subset_size);
// subset_size distinct backends sampled uniformly with `seed`.
std::vector<BackendId> RandomSubset(uint64_t seed, size_t backend_count, size_t subset_size);
// kNone: every backend; kRandom: RandomSubset with a seed mixed from `seed` and `client_id`;
// kDeterministic: DeterministicSubset (`seed` unused: clients must agree on the shuffles).
std::vector<BackendId> ChooseSubset(SubsetMode mode, uint64_t client_id, size_t backend_count,
                                    size_t subset_size, uint64_t seed);

}  // namespace railyard::balance
