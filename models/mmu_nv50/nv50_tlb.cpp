// SPDX-License-Identifier: Apache-2.0
#include "nv50_tlb.h"
#include <stdexcept>
#include <string>

namespace gpuvp::mmu_nv50 {

void tlb::configure(unsigned entries, unsigned ways, tlb_policy policy, uint64_t seed) {
  check_tlb_geometry(entries, ways);
  entries_.assign(entries, entry{});
  ways_ = ways;
  sets_ = entries / ways;
  replacement_.configure(policy, seed);
  flush();
}

void tlb::flush() {
  for (auto& e : entries_) e.key = 0;
  ++epoch_;
  gran_mask_ = 0;
  gran_count_.fill(0);
}

unsigned tlb::valid_entries() const {
  unsigned n = 0;
  for (const auto& e : entries_) n += (e.key & valid_bit) ? 1 : 0;
  return n;
}

const tlb::entry* tlb::lookup_slow(uint32_t chandesc, uint64_t virt) {
  const uint64_t tag = hint_tag(chandesc, virt);
  for (uint32_t m = gran_mask_; m; m &= m - 1) {
    const unsigned gran = unsigned(__builtin_ctz(m)) + 12;
    const uint64_t key = make_key(chandesc, virt, gran);
    entry* set = &entries_[size_t(set_of(chandesc, virt, gran)) * ways_];
    for (unsigned w = 0; w < ways_; ++w) {
      if (set[w].key == key) {
        touch(&set[w]);
        hints_[hint_index(tag)] = {tag, epoch_, &set[w]};
        return &set[w];
      }
    }
  }
  return nullptr;
}

const tlb::entry* tlb::insert(uint32_t chandesc, uint64_t virt, const pte& p, unsigned shift, bool* evicted_out) {
  const unsigned gran = shift + p.order;  // at most 16 + 7 = 23
  entry* set = &entries_[size_t(set_of(chandesc, virt, gran)) * ways_];
  bool evicted = false;
  entry* victim = replacement_.way_for_insert(
      set, ways_, [](const entry& e) { return (e.key & valid_bit) != 0; }, evicted);
  if (evicted) {
    const unsigned old = granularity(*victim) - 12;
    if (--gran_count_[old] == 0) gran_mask_ &= ~(1u << old);
  }
  victim->key = make_key(chandesc, virt, gran);
  victim->stamp = now();
  victim->p = p;
  victim->shift = uint8_t(shift);
  ++gran_count_[gran - 12];
  gran_mask_ |= 1u << (gran - 12);
  ++epoch_;  // the new entry may shadow what a hint names (a smaller granularity is probed first)
  if (evicted_out) *evicted_out = evicted;
  return victim;
}

}  // namespace gpuvp::mmu_nv50
