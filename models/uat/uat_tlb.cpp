// SPDX-License-Identifier: Apache-2.0
#include "uat_tlb.h"

#include <stdexcept>
#include <string>

namespace gpuvp::uat {

std::optional<tlb_policy> parse_tlb_policy(std::string_view name) {
  if (name == "lru") return tlb_policy::lru;
  if (name == "fifo") return tlb_policy::fifo;
  if (name == "random") return tlb_policy::random;
  return std::nullopt;
}

void tlb::configure(unsigned entries, unsigned ways, tlb_policy policy, uint64_t seed, uint16_t asid_mask) {
  auto pow2 = [](unsigned v) { return v && !(v & (v - 1)); };
  if (!pow2(entries) || !pow2(ways) || ways > entries)
    throw std::invalid_argument("TLB of " + std::to_string(entries) + " entries and " + std::to_string(ways) +
                                " ways: both must be powers of two with ways <= entries");
  entries_.assign(entries, entry{});
  ways_ = ways;
  sets_ = entries / ways;
  policy_ = policy;
  rng_ = seed ? seed : 1;
  asid_mask_ = asid_mask;
}

tlb::entry* tlb::insert(uint64_t vpn, uint16_t asid, uint64_t pte, uint64_t pte_addr, uint8_t rights, bool& evicted) {
  entry* set = &entries_[(vpn & (sets_ - 1)) * ways_];
  entry* victim = nullptr;
  for (unsigned w = 0; w < ways_ && !victim; ++w)
    if (!set[w].valid) victim = &set[w];
  evicted = !victim;
  if (!victim) {
    if (policy_ == tlb_policy::random) {
      rng_ ^= rng_ << 13, rng_ ^= rng_ >> 7, rng_ ^= rng_ << 17;  // xorshift64: deterministic
      victim = &set[rng_ % ways_];
    } else {  // LRU and FIFO: the oldest stamp (last use, or insertion)
      victim = &set[0];
      for (unsigned w = 1; w < ways_; ++w)
        if (set[w].stamp < victim->stamp) victim = &set[w];
    }
  }
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
    if (s.all) hit = true;
    else if (s.by_asid) hit = !e.global && e.asid == asid;
    else hit = (e.global || e.asid == asid) && ((e.vpn - s.first) & vpn_mask) < s.pages;
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
