// One NV50 VM engine's TLB (pure C++): set-associative, caching PTEs per (channel, block).
// A contig block of order o over pages of 2^s bytes is one entry of granularity s + o. Lookups
// probe only the granularities present (a bit mask kept with per-granularity counts), after the
// most recently hit entry.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>
#include "nv50_vm.h"

namespace gpuvp::nv50 {

enum class tlb_policy : uint8_t { lru, fifo, random };
std::optional<tlb_policy> parse_tlb_policy(std::string_view name);  // "lru", "fifo", "random"

class tlb {
 public:
  struct entry {
    uint64_t key = 0;      // bit 63 valid, 58-62 granularity - 12, 28-57 chandesc, 0-27 vpn
    uint64_t stamp = 0;    // LRU: last use; FIFO: insertion
    pte p;
    uint8_t shift = 12;    // page size
  };

  // entries and ways: powers of two, ways <= entries. Clears the TLB.
  void configure(unsigned entries, unsigned ways, tlb_policy policy, uint64_t seed = 1);
  const entry* lookup(uint32_t chandesc, uint64_t virt) {
    if (mru_ && mru_->key == make_key(chandesc, virt, granularity(*mru_))) {
      if (policy_ == tlb_policy::lru) mru_->stamp = ++clock_;
      return mru_;
    }
    return lookup_slow(chandesc, virt);
  }
  // A hit found without lookup() (the MMU's per-engine last-translation shortcut): keeps the
  // replacement order exactly as if lookup() had found it.
  void touch(const entry* e) {
    if (policy_ == tlb_policy::lru) const_cast<entry*>(e)->stamp = ++clock_;
  }
  // Caches the PTE of `virt` (page size 2^shift); returns true if a valid entry was evicted.
  bool insert(uint32_t chandesc, uint64_t virt, const pte& p, unsigned shift);
  void flush();
  unsigned valid_entries() const;
  unsigned entries() const { return unsigned(entries_.size()); }
  unsigned ways() const { return ways_; }

 private:
  static constexpr uint64_t valid_bit = uint64_t(1) << 63;
  static unsigned granularity(const entry& e) { return unsigned((e.key >> 58) & 0x1f) + 12; }
  static uint64_t make_key(uint32_t chandesc, uint64_t virt, unsigned gran) {
    return valid_bit | uint64_t(gran - 12) << 58 | uint64_t(chandesc & 0x3fffffff) << 28 |
           ((virt >> gran) & 0x0fffffff);
  }
  unsigned set_of(uint32_t chandesc, uint64_t virt, unsigned gran) const {
    return unsigned(((virt >> gran) ^ (chandesc * 0x9e3779b1u)) & (sets_ - 1));
  }
  const entry* lookup_slow(uint32_t chandesc, uint64_t virt);

  std::vector<entry> entries_;
  unsigned ways_ = 1, sets_ = 1;
  tlb_policy policy_ = tlb_policy::lru;
  uint64_t clock_ = 0, rng_ = 1;
  entry* mru_ = nullptr;
  uint32_t gran_mask_ = 0;                  // bit g-12 set when some entry has granularity g
  std::array<uint32_t, 12> gran_count_{};   // granularities 12..23
};

}  // namespace gpuvp::nv50
