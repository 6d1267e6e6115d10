// SPDX-License-Identifier: Apache-2.0
// One view's TLB (pure C++): set-associative, entries tagged with the TTBAT entry's ASID (masked
// to the ASID width) or global (nG = 0), indexed by UAT page (VA[39:14]).
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>
#include "uat_format.h"
#include "gpuvp/tlb_replacement.h"

namespace gpuvp::uat {

using gpuvp::parse_tlb_policy;
using gpuvp::tlb_policy;  // gpuvp/tlb_replacement.h

class tlb {
 public:
  struct entry {
    uint64_t vpn = 0;       // VA[39:14]
    uint64_t pte = 0;       // the leaf descriptor
    uint64_t pte_addr = 0;  // where it was read (stale-hit reports)
    uint64_t stamp = 0;     // LRU: last use; FIFO: insertion
    uint16_t asid = 0;
    uint8_t rights = 0;  // of this TLB's view
    bool global = false, valid = false;
  };

  // entries and ways: powers of two, ways <= entries (throws std::invalid_argument). Clears the TLB.
  void configure(unsigned entries, unsigned ways, tlb_policy policy, uint64_t seed, uint16_t asid_mask);
  [[gnu::always_inline]] entry* lookup(uint64_t vpn, uint16_t asid) {
    entry* set = &entries_[(vpn & (sets_ - 1)) * ways_];
    asid &= asid_mask_;
    for (unsigned w = 0; w < ways_; ++w) {
      entry& e = set[w];
      if (e.valid && e.vpn == vpn && (e.global || e.asid == asid)) {
        if (replacement_.stamps_hits()) e.stamp = ++clock_;
        return &e;
      }
    }
    return nullptr;
  }
  // A hit found without lookup() (the UAT's hint table) records its use as lookup() would:
  // *stamp_to_touch(e) = ++use_clock() (no stamp to touch unless LRU).
  uint64_t* stamp_to_touch(entry* e) { return replacement_.stamps_hits() ? &e->stamp : nullptr; }
  uint64_t& use_clock() { return clock_; }
  // Caches a page; `evicted` tells whether a valid entry was replaced.
  entry* insert(uint64_t vpn, uint16_t asid, uint64_t pte, uint64_t pte_addr, uint8_t rights, bool& evicted);
  // Invalidations; each returns the number of entries dropped.
  unsigned invalidate(const tlbi_scope& s);
  unsigned valid_entries() const;
  unsigned size() const { return unsigned(entries_.size()); }
  uint16_t asid_mask() const { return asid_mask_; }

 private:
  std::vector<entry> entries_;
  unsigned ways_ = 1, sets_ = 1;
  tlb_replacement replacement_;
  uint16_t asid_mask_ = 0xff;
  uint64_t clock_ = 0;
};

}  // namespace gpuvp::uat
