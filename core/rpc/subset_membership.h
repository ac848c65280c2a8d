// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/balance/subsetting.h"

namespace railyard::rpc {

// Which of a client's servers its acquirer connects to: the client's subset
// (core/balance/subsetting.h) of the servers not removed, plus, while a member of that subset is
// down, one replacement from outside it, given up as soon as the member is back (the SRE
// chapter's "temporarily pick a replacement backend"). A replacement is chosen by hashing the
// client's key with the dead member, so the clients of a dead backend spread its load over the
// others rather than all moving to one.
//
// Servers are known by their index in the client's list, which never changes: a removed server
// keeps its index and is never wanted again. The subset is chosen over the servers not removed,
// in index order, so adding or removing one recomputes it (deterministic subsetting then moves
// few clients only when servers are appended).
//
// Thread safety: none; rpc::Client calls it under its pool lock.
class SubsetMembership {
 public:
  // `key`: the client's index for deterministic subsetting (its id for random subsetting);
  // `seed`: random subsetting's seed.
  SubsetMembership(balance::SubsetMode mode, size_t subset_size, uint64_t key, uint64_t seed);

  // Appends a server (the next index), live and up.
  void Add();
  // Takes server `server` out for good. REQUIRES: server < size().
  void Remove(uint32_t server);
  // Whether server `server` is reachable as far as the client knows. A member that is down gets a
  // replacement; one that is up again releases it. Returns whether that changed anything known.
  // REQUIRES: server < size().
  bool SetDown(uint32_t server, bool down);

  size_t size() const { return servers_.size(); }
  bool removed(uint32_t server) const { return servers_[server].removed; }
  // A member of the subset or a replacement: the acquirer connects to it and the pool keeps it.
  bool Wanted(uint32_t server) const;
  // Subset members (down ones included), ascending.
  std::vector<uint32_t> Subset() const;
  // Servers standing in for a down member, ascending.
  std::vector<uint32_t> Replacements() const;

 private:
  struct Server {
    bool removed = false;
    bool down = false;
    bool member = false;
    bool replacement = false;
  };

  void Recompute();
  void ChooseReplacements();

  const balance::SubsetMode mode_;
  const size_t subset_size_;
  const uint64_t key_;
  const uint64_t seed_;
  std::vector<Server> servers_;
};

}  // namespace railyard::rpc
