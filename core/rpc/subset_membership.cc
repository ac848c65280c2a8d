// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/subset_membership.h"

#include "core/base/random.h"

namespace railyard::rpc {

SubsetMembership::SubsetMembership(balance::SubsetMode mode, size_t subset_size, uint64_t key,
                                   uint64_t seed)
    : mode_(mode), subset_size_(subset_size), key_(key), seed_(seed) {}

void SubsetMembership::Add() {
  servers_.emplace_back();
  Recompute();
}

void SubsetMembership::Remove(uint32_t server) {
  servers_[server] = Server{.removed = true};
  Recompute();
}

bool SubsetMembership::SetDown(uint32_t server, bool down) {
  if (servers_[server].down == down) return false;
  servers_[server].down = down;
  ChooseReplacements();
  return true;
}

bool SubsetMembership::Wanted(uint32_t server) const {
  const Server& s = servers_[server];
  return !s.removed && (s.member || s.replacement);
}

std::vector<uint32_t> SubsetMembership::Subset() const {
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < servers_.size(); ++i) {
    if (servers_[i].member) ids.push_back(i);
  }
  return ids;
}

std::vector<uint32_t> SubsetMembership::Replacements() const {
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < servers_.size(); ++i) {
    if (servers_[i].replacement) ids.push_back(i);
  }
  return ids;
}

void SubsetMembership::Recompute() {
  std::vector<uint32_t> live;
  for (uint32_t i = 0; i < servers_.size(); ++i) {
    servers_[i].member = false;
    if (!servers_[i].removed) live.push_back(i);
  }
  if (mode_ == balance::SubsetMode::kNone) {
    for (const uint32_t i : live) servers_[i].member = true;
  } else {
    for (const balance::BackendId position :
         balance::ChooseSubset(mode_, key_, live.size(), subset_size_, seed_)) {
      servers_[live[position]].member = true;
    }
  }
  ChooseReplacements();
}

void SubsetMembership::ChooseReplacements() {
  for (Server& s : servers_) s.replacement = false;
  for (uint32_t dead = 0; dead < servers_.size(); ++dead) {
    if (!servers_[dead].member || !servers_[dead].down) continue;
    // Outside the subset, not already standing in, and up as far as we know; failing that, one
    // that is down too (it is probed like any wanted server, and may be back).
    std::vector<uint32_t> candidates;
    for (const bool allow_down : {false, true}) {
      for (uint32_t i = 0; i < servers_.size(); ++i) {
        const Server& s = servers_[i];
        if (!s.removed && !s.member && !s.replacement && (allow_down || !s.down)) {
          candidates.push_back(i);
        }
      }
      if (!candidates.empty()) break;
    }
    if (candidates.empty()) continue;  // Every server is in the subset: nothing to stand in.
    // Clients of the same dead member pick different stand-ins, so its load spreads.
    const uint64_t pick = base::Mix64(key_ ^ base::Mix64(uint64_t{dead} + 1)) % candidates.size();
    servers_[candidates[pick]].replacement = true;
  }
}

}  // namespace railyard::rpc
