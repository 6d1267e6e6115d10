// SPDX-License-Identifier: Apache-2.0
// The replacement machinery of a set-associative TLB (pure C++), shared by the NV50 MMU's and the
// UAT's TLBs: the policy (LRU: the oldest last use; FIFO: the oldest insertion; random: a seeded
// xorshift64, so that runs repeat) and the choice of the way a new entry takes in its set.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpuvp {

enum class tlb_policy : uint8_t { lru, fifo, random };

// "lru", "fifo", "random".
inline std::optional<tlb_policy> parse_tlb_policy(std::string_view name) {
  if (name == "lru") return tlb_policy::lru;
  if (name == "fifo") return tlb_policy::fifo;
  if (name == "random") return tlb_policy::random;
  return std::nullopt;
}

inline bool is_power_of_two(unsigned v) { return v && !(v & (v - 1)); }
// A set-associative TLB's geometry: entries and ways powers of two, ways <= entries.
inline void check_tlb_geometry(unsigned entries, unsigned ways) {
  if (!is_power_of_two(entries) || !is_power_of_two(ways) || ways > entries)
    throw std::invalid_argument("TLB of " + std::to_string(entries) + " entries and " + std::to_string(ways) +
                                " ways: both must be powers of two with ways <= entries");
}

// An Entry has a `stamp` (LRU: last use; FIFO: insertion; the TLB keeps it).
class tlb_replacement {
 public:
  void configure(tlb_policy policy, uint64_t seed) {
    policy_ = policy;
    rng_ = seed ? seed : 1;
  }
  tlb_policy policy() const { return policy_; }
  // Whether a hit records its use in the entry's stamp (LRU only).
  bool stamps_hits() const { return policy_ == tlb_policy::lru; }
  // The way of `set` (of `ways` entries) that a new entry takes: the first invalid one, else the
  // policy's victim (`evicted` then true).
  template <class Entry, class Valid>
  Entry* way_for_insert(Entry* set, unsigned ways, Valid&& valid, bool& evicted) {
    for (unsigned w = 0; w < ways; ++w)
      if (!valid(set[w])) return evicted = false, &set[w];
    evicted = true;
    if (policy_ == tlb_policy::random) {
      rng_ ^= rng_ << 13, rng_ ^= rng_ >> 7, rng_ ^= rng_ << 17;  // xorshift64: deterministic
      return &set[rng_ % ways];
    }
    Entry* victim = set;  // LRU and FIFO both evict the smallest stamp
    for (unsigned w = 1; w < ways; ++w)
      if (set[w].stamp < victim->stamp) victim = &set[w];
    return victim;
  }

 private:
  tlb_policy policy_ = tlb_policy::lru;
  uint64_t rng_ = 1;
};

}  // namespace gpuvp
