// SPDX-License-Identifier: Apache-2.0
#include "nv50_tlb.h"
#include <stdexcept>
#include <string>

namespace gpuvp::nv50 {

std::optional<tlb_policy> parse_tlb_policy(std::string_view name) {
  if (name == "lru") return tlb_policy::lru;
  if (name == "fifo") return tlb_policy::fifo;
  if (name == "random") return tlb_policy::random;
  return std::nullopt;
}

void tlb::configure(unsigned entries, unsigned ways, tlb_policy policy, uint64_t seed) {
  auto pow2 = [](unsigned v) { return v && !(v & (v - 1)); };
  if (!pow2(entries) || !pow2(ways) || ways > entries)
    throw std::invalid_argument("TLB geometry " + std::to_string(entries) + " entries / " +
                                std::to_string(ways) + " ways: both must be powers of two, ways <= entries");
  entries_.assign(entries, entry{});
  ways_ = ways;
  sets_ = entries / ways;
  policy_ = policy;
  rng_ = seed ? seed : 1;
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
  entry* victim = nullptr;
  for (unsigned w = 0; w < ways_ && !victim; ++w)
    if (!(set[w].key & valid_bit)) victim = &set[w];
  const bool evicted = victim == nullptr;
  if (!victim) {
    if (policy_ == tlb_policy::random) {
      rng_ ^= rng_ << 13; rng_ ^= rng_ >> 7; rng_ ^= rng_ << 17;  // xorshift64: deterministic
      victim = &set[rng_ % ways_];
    } else {
      victim = set;  // LRU and FIFO both evict the smallest stamp
      for (unsigned w = 1; w < ways_; ++w)
        if (set[w].stamp < victim->stamp) victim = &set[w];
    }
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

}  // namespace gpuvp::nv50
