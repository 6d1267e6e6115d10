// SPDX-License-Identifier: Apache-2.0
#include "uat_tlb.h"

#include <stdexcept>
#include <string>

namespace gpuvp::uat {

void tlb::configure(unsigned entries, unsigned ways, tlb_policy policy, uint64_t seed, uint16_t asid_mask) {
  check_tlb_geometry(entries, ways);
  entries_.assign(entries, entry{});
  ways_ = ways;
  sets_ = entries / ways;
  replacement_.configure(policy, seed);
  asid_mask_ = asid_mask;
}

tlb::entry* tlb::insert(uint64_t vpn, uint16_t asid, uint64_t pte, uint64_t pte_addr, uint8_t rights, bool& evicted) {
  entry* set = &entries_[(vpn & (sets_ - 1)) * ways_];
  entry* victim = replacement_.way_for_insert(
      set, ways_, [](const entry& e) { return e.valid; }, evicted);
  const bool global = !pte_fields::ng(pte);
  *victim = entry{vpn, pte, pte_addr, ++clock_, uint16_t(global ? 0 : asid & asid_mask_), rights, global, true};
  return victim;
}

unsigned tlb::invalidate(const tlbi_scope& s) {
  unsigned n = 0;
  const uint16_t asid = s.asid & asid_mask_;
  for (auto& e : entries_) {
    if (!e.valid) continue;
    bool hit;
    if (s.all)
      hit = true;
    else if (s.by_asid)
      hit = !e.global && e.asid == asid;
    else
      hit = (e.global || e.asid == asid) && ((e.vpn - s.first) & vpn_mask) < s.pages;
    if (hit) e.valid = false, ++n;
  }
  return n;
}

unsigned tlb::valid_entries() const {
  unsigned n = 0;
  for (const auto& e : entries_) n += e.valid;
  return n;
}

}  // namespace gpuvp::uat
