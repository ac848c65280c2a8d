// SPDX-License-Identifier: Apache-2.0
#include "core/balance/subsetting.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "core/base/random.h"

namespace railyard::balance {
namespace {

std::vector<BackendId> AllBackends(size_t backend_count) {
  std::vector<BackendId> all(backend_count);
  std::iota(all.begin(), all.end(), BackendId{0});
  return all;
}

void Shuffle(std::vector<BackendId>& ids, base::Rng& rng) {
  for (size_t i = ids.size(); i > 1; --i) {
    std::swap(ids[i - 1], ids[rng.Below(i)]);
  }
}

}  // namespace

std::optional<SubsetMode> ParseSubsetMode(std::string_view name) {
  for (SubsetMode mode : {SubsetMode::kNone, SubsetMode::kRandom, SubsetMode::kDeterministic}) {
    if (SubsetModeName(mode) == name) return mode;
  }
  return std::nullopt;
}

std::string_view SubsetModeName(SubsetMode mode) {
  switch (mode) {
    case SubsetMode::kNone:
      return "none";
    case SubsetMode::kRandom:
      return "random";
    case SubsetMode::kDeterministic:
      return "deterministic";
  }
  return "unknown";
}

std::vector<BackendId> DeterministicSubset(uint64_t client_id, size_t backend_count,
                                           size_t subset_size) {
  if (subset_size == 0 || subset_size >= backend_count) return AllBackends(backend_count);
  const uint64_t subset_count = backend_count / subset_size;
  const uint64_t round = client_id / subset_count;
  const uint64_t k = client_id % subset_count;
  // Every client of a round shuffles alike (the seed is the round), so together they cover it.
  std::vector<BackendId> shuffled = AllBackends(backend_count);
  base::Rng rng(base::Mix64(round));
  Shuffle(shuffled, rng);
  std::vector<BackendId> subset(
      shuffled.begin() + static_cast<std::ptrdiff_t>(k * subset_size),
      shuffled.begin() + static_cast<std::ptrdiff_t>((k + 1) * subset_size));
  // The leftovers (fewer than subset_size) go one each to the round's clients in turn, starting
  // at a different client each round so the extra load rotates.
  const size_t used = subset_count * subset_size;
  for (size_t j = used; j < backend_count; ++j) {
    if ((round * (backend_count - used) + (j - used)) % subset_count == k) {
      subset.push_back(shuffled[j]);
    }
  }
  std::sort(subset.begin(), subset.end());
  return subset;
}

std::vector<BackendId> RandomSubset(uint64_t seed, size_t backend_count, size_t subset_size) {
  std::vector<BackendId> all = AllBackends(backend_count);
  if (subset_size == 0 || subset_size >= backend_count) return all;
  base::Rng rng(base::Mix64(seed));
  // A partial Fisher-Yates: the first subset_size positions are a uniform sample.
  for (size_t i = 0; i < subset_size; ++i) {
    std::swap(all[i], all[i + rng.Below(backend_count - i)]);
  }
  all.resize(subset_size);
  std::sort(all.begin(), all.end());
  return all;
}

std::vector<BackendId> ChooseSubset(SubsetMode mode, uint64_t client_id, size_t backend_count,
                                    size_t subset_size, uint64_t seed) {
  switch (mode) {
    case SubsetMode::kNone:
      break;
    case SubsetMode::kRandom:
      return RandomSubset(base::Mix64(seed) ^ client_id, backend_count, subset_size);
    case SubsetMode::kDeterministic:
      return DeterministicSubset(client_id, backend_count, subset_size);
  }
  return AllBackends(backend_count);
}

}  // namespace railyard::balance
