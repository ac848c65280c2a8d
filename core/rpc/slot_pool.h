// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace railyard::rpc {

// The client's fixed-size pool of server connections, kept in server-slot order: the seed's
// "specialized data structure" for the non-I/O pool operations. It tracks only identities and
// states; rpc::Client keeps the sockets in a table indexed by the same handles.
//
// Members are ordered by (draining, slot, tie_break): members on a server that is draining come
// last, behind every other, so requests go to them only when nothing else is idle and any fresh
// connection displaces them from a full pool, whatever its slot. The owner passes a per-client
// ranking of servers as tie_break so that no server is preferred by every client on equal slots. An
// idle bitmap over positions in that order makes "lowest idle slot" a find-first-set over a few
// words, so acquire and release are O(capacity / 64) with no allocation. Admitting or removing a
// member reorders in O(capacity), which only the background acquirer and failures do.
//
// A member evicted or removed while busy becomes "retiring": it leaves the order at once (its place
// is free for a better connection) but its handle lives on until its request ends, when Release
// says to close it.
//
// Thread safety: none. The owner serialises all calls.
class SlotPool {
 public:
  using Handle = uint32_t;

  struct Entry {
    uint32_t server = 0;
    uint32_t slot = 0;
    uint32_t tie_break = 0;
    uint64_t requests = 0;
    bool busy = false;
    bool draining = false;  // Its server said lame duck (SetServerDraining).
    bool member = false;    // In the slot order (false: retiring or free).
    bool allocated = false;
  };

  struct Admission {
    enum class Kind { kAdded, kReplaced, kRejected };
    Kind kind = Kind::kRejected;
    Handle handle = 0;                // The new member (kAdded, kReplaced).
    std::optional<Handle> evicted;    // kReplaced: the member it displaced.
    bool evicted_still_busy = false;  // Close it when its request ends, not now.
  };

  explicit SlotPool(size_t capacity);
  SlotPool(const SlotPool&) = delete;
  SlotPool& operator=(const SlotPool&) = delete;

  size_t capacity() const { return capacity_; }
  size_t size() const { return order_.size(); }
  bool full() const { return order_.size() >= capacity_; }

  // Offers a freshly connected (server, slot), not draining. Joins a pool that is not full; in a
  // full pool it displaces the worst member if it beats it (any draining member is beaten),
  // otherwise it is rejected. Equal slots are ordered by `tie_break`, lowest first.
  Admission Offer(uint32_t server, uint32_t slot, uint32_t tie_break);
  Admission Offer(uint32_t server, uint32_t slot) { return Offer(server, slot, server); }

  // Marks every member on `server` draining or not, and reorders. O(capacity log capacity).
  void SetServerDraining(uint32_t server, bool draining);

  // Marks the idle member with the lowest slot busy and returns it; nullopt when none is idle.
  std::optional<Handle> AcquireLowestIdle();
  // As above, but skips members on the servers in `avoid` when any other member is idle.
  std::optional<Handle> AcquireLowestIdle(std::span<const uint32_t> avoid);
  // Marks a specific idle member busy. Returns false if it is not an idle member.
  bool Acquire(Handle handle);
  // Ends a request. Returns true if the entry was retired meanwhile and must now be closed; its
  // handle is free after this call.
  bool Release(Handle handle);
  // Takes a member out of the pool (connection failed, server draining). Returns true if the handle
  // is free now; false if it is busy and will be freed by Release.
  bool Remove(Handle handle);

  const Entry& entry(Handle handle) const { return entries_[handle]; }
  // Members in slot order; position 0 is the best connection.
  const std::vector<Handle>& order() const { return order_; }
  size_t idle_count() const;
  // The worst member's slot (a draining one, if any), when full.
  std::optional<uint32_t> worst_slot() const;

 private:
  static bool Before(const Entry& a, const Entry& b) {
    if (a.draining != b.draining) return b.draining;
    return a.slot != b.slot ? a.slot < b.slot : a.tie_break < b.tie_break;
  }
  Handle AllocateHandle();
  void FreeHandle(Handle handle);
  void InsertMember(Handle handle);
  void EraseMember(Handle handle);
  void RebuildPositions(size_t from);
  void SetIdleBit(size_t position, bool idle);
  Handle AcquireAt(size_t position);

  size_t capacity_;
  std::vector<Entry> entries_;  // Indexed by handle.
  std::vector<Handle> free_handles_;
  std::vector<Handle> order_;        // Members by (slot, server).
  std::vector<uint32_t> position_;   // Handle -> index in order_ (members only).
  std::vector<uint64_t> idle_bits_;  // Bit p set: order_[p] is idle.
};

}  // namespace railyard::rpc
