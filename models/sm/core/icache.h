// SPDX-License-Identifier: Apache-2.0
// The L1 instruction cache of one SM with -gpgpu_perfect_inst_const_cache 0 (GPGPU-Sim's
// read_only_cache m_L1I, configured by -gpgpu_cache:il1): LRU tags allocated on fill, MSHRs that
// merge the warps missing the same line, a miss queue sent one request a cycle. Fetch addresses
// are the warp's PC + PROGRAM_MEM_START (0xF0000000), as shader_core_ctx::fetch makes them. A
// line miss is one request of the whole line where the memory takes it (a non-sectored L2:
// mem_port::packet_bytes; GPGPU-Sim's read_only_cache sends one mem_fetch of get_atom_sz(), the
// line of a non-sectored L1I), else its 32-byte sectors, filled when all are back. Internal to
// sm_core.
#pragma once
#include <cstdint>
#include <deque>
#include <vector>

#include "core/mem_config.h"

namespace gpuvp::sm {

struct inst_cache {
  static constexpr uint64_t program_mem_start = 0xF0000000ull;
  enum class result { hit, miss, fail };
  struct mshr {
    uint64_t line;
    std::vector<unsigned> warps;  // in the order they missed
    unsigned sectors_left;
  };
  cache_config cfg;
  std::vector<uint64_t> tag, lru;  // per set x way: line (~0: none), last use
  uint64_t stamp = 0;
  std::vector<mshr> mshrs;          // entries (at most cfg.mshrs)
  std::deque<uint64_t> miss_queue;  // sector addresses to send
  std::deque<mshr> ready;           // filled entries whose warps still wait (m_current_response)
  struct fill {
    uint64_t at, addr;
  };
  std::vector<fill> fills;  // sectors answered, applied in their cycle
  uint64_t accesses = 0, hits = 0, misses = 0, mshr_hits = 0, fails = 0;
  unsigned request_bytes = 32;  // bytes of one miss request: a sector, or the line (see above)

  explicit inst_cache(const cache_config& c) : cfg(c), tag(size_t(c.sets) * c.ways, ~0ull), lru(tag.size(), 0) {}
  size_t find(uint64_t line) const {
    const size_t base = size_t(line % cfg.sets) * cfg.ways;
    for (size_t i = base; i < base + cfg.ways; ++i)
      if (tag[i] == line) return i;
    return SIZE_MAX;
  }
  // read_only_cache::access for warp w's fetch at `addr`: a hit; a miss that merges into the
  // line's MSHR (MSHR_HIT, counted as a miss too) or takes a new one with a miss-queue entry per
  // sector; or a reservation fail (no MSHR entry, merge slot or miss-queue room).
  result access(uint64_t addr, unsigned w) {
    const uint64_t line = addr / cfg.line;
    const size_t i = find(line);
    if (i != SIZE_MAX) {
      ++accesses;
      ++hits;
      lru[i] = ++stamp;
      return result::hit;
    }
    for (mshr& m : mshrs)
      if (m.line == line) {
        if (m.warps.size() >= cfg.mshr_merge) return ++fails, result::fail;
        m.warps.push_back(w);
        ++accesses;
        ++misses;
        ++mshr_hits;
        return result::miss;
      }
    const unsigned requests = cfg.line / request_bytes;
    if (mshrs.size() >= cfg.mshrs || miss_queue.size() >= cfg.miss_queue) return ++fails, result::fail;
    mshrs.push_back({line, {w}, requests});
    for (unsigned s = 0; s < requests; ++s) miss_queue.push_back(line * cfg.line + request_bytes * s);
    ++accesses;
    ++misses;
    return result::miss;
  }
  // The fills due by `now`: a line whose sectors are all back takes its set's LRU way and its
  // MSHR entry becomes ready (baseline_cache::fill with allocate-on-fill).
  void apply_fills(uint64_t now) {
    for (size_t k = 0; k < fills.size();) {
      if (fills[k].at > now) {
        ++k;
        continue;
      }
      const uint64_t line = fills[k].addr / cfg.line;
      fills[k] = fills.back();
      fills.pop_back();
      for (size_t e = 0; e < mshrs.size(); ++e) {
        if (mshrs[e].line != line || --mshrs[e].sectors_left) continue;
        const size_t base = size_t(line % cfg.sets) * cfg.ways;
        size_t v = base;
        for (size_t i = base; i < base + cfg.ways; ++i)
          if (lru[i] < lru[v]) v = i;
        tag[v] = line;
        lru[v] = ++stamp;
        ready.push_back(std::move(mshrs[e]));
        mshrs.erase(mshrs.begin() + long(e));
        break;
      }
    }
  }
  bool busy() const { return !mshrs.empty() || !ready.empty() || !miss_queue.empty() || !fills.empty(); }
};

}  // namespace gpuvp::sm
