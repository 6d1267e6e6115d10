// SPDX-License-Identifier: Apache-2.0
// One NV50 VM engine's TLB (pure C++): set-associative, caching PTEs per (channel, block).
// A contig block of order o over pages of 2^s bytes is one entry of granularity s + o. Lookups
// first try a small direct-mapped hint table (exact: it is dropped by every insert and flush, so
// it can only name the entry the set search would find), then probe only the granularities
// present (a bit mask kept with per-granularity counts).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>
#include "nv50_vm.h"
#include "gpuvp/tlb_replacement.h"

namespace gpuvp::mmu_nv50 {

using gpuvp::parse_tlb_policy;
using gpuvp::tlb_policy;  // gpuvp/tlb_replacement.h

class tlb {
 public:
  struct entry {
    uint64_t key = 0;    // bit 63 valid, 58-62 granularity - 12, 28-57 chandesc, 0-27 vpn
    uint64_t stamp = 0;  // LRU: last use; FIFO: insertion
    pte p;
    uint8_t shift = 12;  // page size
  };

  // entries and ways: powers of two, ways <= entries. Clears the TLB.
  void configure(unsigned entries, unsigned ways, tlb_policy policy, uint64_t seed = 1);
  const entry* lookup(uint32_t chandesc, uint64_t virt) {
    const uint64_t tag = hint_tag(chandesc, virt);
    const hint& h = hints_[hint_index(tag)];
    if (h.tag == tag && h.epoch == epoch_) {
      touch(h.e);
      return h.e;
    }
    return lookup_slow(chandesc, virt);
  }
  // Where a hit on `e` records its use (nullptr when the policy keeps no use order): the MMU's
  // micro-TLB, which finds hits without lookup(), stores the clock there itself, so the
  // replacement order is exactly as if lookup() had found them.
  uint64_t* lru_stamp(const entry* e) { return replacement_.stamps_hits() ? &const_cast<entry*>(e)->stamp : nullptr; }
  // An outside clock (the MMU's translation count, shared by its TLBs) instead of the TLB's own:
  // it must advance between any two touches or inserts of one TLB. Replacement compares stamps
  // within one set only, so any such clock gives the same victims as the own one.
  void use_clock(const uint64_t* clock) { clock_ = clock; }
  // Caches the PTE of `virt` (page size 2^shift); returns the new entry. `evicted` (optional)
  // tells whether a valid entry was replaced.
  const entry* insert(uint32_t chandesc, uint64_t virt, const pte& p, unsigned shift, bool* evicted = nullptr);
  void flush();
  unsigned valid_entries() const;

 private:
  static constexpr uint64_t valid_bit = uint64_t(1) << 63;
  static constexpr unsigned hint_count = 64;
  struct hint {
    uint64_t tag = 0, epoch = 0;  // tag: valid bit, chandesc, 4 KiB page; epoch: see epoch_
    entry* e = nullptr;
  };
  static unsigned granularity(const entry& e) { return unsigned((e.key >> 58) & 0x1f) + 12; }
  static uint64_t make_key(uint32_t chandesc, uint64_t virt, unsigned gran) {
    return valid_bit | uint64_t(gran - 12) << 58 | uint64_t(chandesc & 0x3fffffff) << 28 | ((virt >> gran) & 0x0fffffff);
  }
  // The set search's answer depends only on the channel and the 4 KiB page (granularities >= 12).
  static uint64_t hint_tag(uint32_t chandesc, uint64_t virt) {
    return valid_bit | uint64_t(chandesc & 0x3fffffff) << 28 | ((virt >> 12) & 0x0fffffff);
  }
  static unsigned hint_index(uint64_t tag) { return unsigned((tag ^ (tag >> 28)) & (hint_count - 1)); }
  unsigned set_of(uint32_t chandesc, uint64_t virt, unsigned gran) const {
    return unsigned(((virt >> gran) ^ (chandesc * 0x9e3779b1u)) & (sets_ - 1));
  }
  const entry* lookup_slow(uint32_t chandesc, uint64_t virt);
  // A hit: LRU records its use (FIFO and random keep no use order).
  void touch(entry* e) {
    if (replacement_.stamps_hits()) e->stamp = now();
  }

  std::vector<entry> entries_;
  unsigned ways_ = 1, sets_ = 1;
  tlb_replacement replacement_;
  uint64_t now() { return clock_ ? *clock_ : ++own_clock_; }  // LRU: last use; FIFO: insertion
  uint64_t own_clock_ = 0;                                    // the own clock is never reset: it only grows
  const uint64_t* clock_ = nullptr;
  uint64_t epoch_ = 1;  // bumped by insert and flush: older hints are void
  std::array<hint, hint_count> hints_{};
  uint32_t gran_mask_ = 0;                 // bit g-12 set when some entry has granularity g
  std::array<uint32_t, 12> gran_count_{};  // granularities 12..23
};

}  // namespace gpuvp::mmu_nv50
