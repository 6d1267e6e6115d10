// SPDX-License-Identifier: Apache-2.0
#include "memsys.h"

#include <algorithm>
#include <bit>
#include <initializer_list>
#include <cmath>
#include <iomanip>
#include <stdexcept>
#include <sstream>

namespace gpuvp::sm {

namespace {
uint64_t period_ps(double mhz) { return uint64_t(std::llround(1e6 / mhz)); }
uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
// The bits of v selected by mask, packed to the bottom (low bits first), a run of adjacent
// mask bits at a time.
uint64_t extract(uint64_t v, uint64_t mask) {
  uint64_t out = 0;
  unsigned k = 0;
  while (mask) {
    const unsigned lo = unsigned(__builtin_ctzll(mask));
    const uint64_t run = mask >> lo;
    const unsigned len = ~run ? unsigned(__builtin_ctzll(~run)) : 64;
    const uint64_t bits = len == 64 ? ~0ull : (uint64_t(1) << len) - 1;
    out |= (v >> lo & bits) << k;
    k += len;
    mask &= ~(bits << lo);
  }
  return out;
}
unsigned bit(uint64_t v, unsigned i) { return unsigned(v >> i & 1); }
// The mask of the given bit positions.
constexpr uint64_t bits_mask(std::initializer_list<unsigned> bits) {
  uint64_t m = 0;
  for (unsigned b : bits) m |= uint64_t(1) << b;
  return m;
}
// The XOR of the bits of a that mask selects.
unsigned xor_bits(uint64_t a, uint64_t mask) { return unsigned(std::popcount(a & mask) & 1); }
}  // namespace

// GPGPU-Sim's ipoly_hash_function (hashing.cc): the index bits XORed with the GF(2) residues of
// the higher address bits for IPOLY(5), IPOLY(37) and IPOLY(67) (16, 32 and 64 entries; Rau,
// "Pseudo-randomly interleaved memory", ISCA 1991). Other counts: the index unchanged (GPGPU-Sim
// refuses them; validate() does too).
unsigned ipoly_hash(uint64_t a, unsigned index, unsigned n) {
  // Per result bit i: the address bits whose XOR flips index bit i.
  static constexpr uint64_t h16[] = {
      bits_mask({11, 10, 9, 8, 6, 4, 3, 0}),
      bits_mask({12, 8, 7, 6, 5, 3, 1, 0}),
      bits_mask({9, 8, 7, 6, 4, 2, 1}),
      bits_mask({10, 9, 8, 7, 5, 3, 2}),
  };
  static constexpr uint64_t h32[] = {
      bits_mask({13, 12, 11, 10, 9, 6, 5, 3, 0}),
      bits_mask({14, 13, 12, 11, 10, 7, 6, 4, 1}),
      bits_mask({14, 10, 9, 8, 7, 6, 3, 2, 0}),
      bits_mask({11, 10, 9, 8, 7, 4, 3, 1}),
      bits_mask({12, 11, 10, 9, 8, 5, 4, 2}),
  };
  static constexpr uint64_t h64[] = {
      bits_mask({18, 17, 16, 15, 12, 10, 6, 5, 0}),
      bits_mask({15, 13, 12, 11, 10, 7, 5, 1, 0}),
      bits_mask({16, 14, 13, 12, 11, 8, 6, 2, 1}),
      bits_mask({17, 15, 14, 13, 12, 9, 7, 3, 2}),
      bits_mask({18, 16, 15, 14, 13, 10, 8, 4, 3}),
      bits_mask({17, 16, 15, 14, 11, 9, 5, 4}),
  };
  const uint64_t* h = n == 16 ? h16 : n == 32 ? h32 : n == 64 ? h64 : nullptr;
  if (!h) return index;
  unsigned r = 0;
  for (unsigned i = 0; (1u << i) < n; ++i) r |= (xor_bits(a, h[i]) ^ bit(index, i)) << i;
  return r;
}

gpu_memory::gpu_memory(const gpu_config& cfg)
    : cfg_(cfg), m_(cfg.mem), core_ps_(period_ps(cfg.core_mhz)), icnt_ps_(period_ps(cfg.mem.icnt_mhz)),
      l2_ps_(period_ps(cfg.mem.l2_mhz)), dram_ps_(period_ps(cfg.mem.dram_mhz)) {
  const unsigned sps = m_.sub_partitions();
  port_free_.assign(sps, 0);
  sp_.resize(sps);
  l2_.resize(size_t(sps) * m_.l2.sets * m_.l2.ways);
  // A request popped from an L2 -> DRAM queue at a DRAM clock edge leaves the latency queue
  // -dram_latency + l2_dram_hops core cycles later, at the next DRAM edge: a whole number of
  // DRAM cycles after the pop.
  const unsigned latency = unsigned(ceil_div((cfg.dram_latency + m_.l2_dram_hops) * core_ps_, dram_ps_));
  ch_.reserve(m_.n_mem);
  for (unsigned i = 0; i < m_.n_mem; ++i) ch_.emplace_back(m_, m_.sub_per_channel, latency);
}

dram_address gpu_memory::decode(uint64_t addr) const {
  // addrdec: the channel is the address above bit N modulo the channel count; the rest of the
  // address, with those bits taken out, goes through the mask for bank and row.
  dram_address a;
  const unsigned lo = m_.mem_addr_dramid_bit;
  const uint64_t high = addr >> lo;
  const bool gap = m_.n_mem & (m_.n_mem - 1);
  const unsigned ch_bits = unsigned(std::bit_width(m_.n_mem - 1)), sp_bits = unsigned(std::bit_width(m_.sub_per_channel - 1));
  const uint64_t quot = gap ? high / m_.n_mem : high >> ch_bits;  // (no division for 2^k channels)
  a.channel = unsigned(high - quot * m_.n_mem);
  const uint64_t local = (quot << lo) | (addr & ((1ull << lo) - 1));
  const uint64_t bank = extract(local, m_.bank_mask);
  a.bank = unsigned(m_.dram.nbk & (m_.dram.nbk - 1) ? bank % m_.dram.nbk : bank & (m_.dram.nbk - 1));
  a.row = extract(local, m_.row_mask);
  a.sub_partition = a.channel * m_.sub_per_channel + (a.bank & (m_.sub_per_channel - 1));
  // -gpgpu_memory_partition_indexing (addrdec_tlx): the address bits above the channel and
  // sub-partition bits (with a power-of-two channel count; otherwise the quotient of the
  // channel division) permute the channel (1, XOR) or the sub-partition (2, IPOLY). Bank and row
  // stay those of the consecutive decode.
  const uint64_t higher = gap ? quot : addr >> (lo + ch_bits + sp_bits);
  if (m_.partition_indexing == 1) {
    a.channel = unsigned((a.channel ^ (higher & ((1ull << ch_bits) - 1))) % m_.n_mem);
    a.sub_partition = a.channel * m_.sub_per_channel + (a.bank & (m_.sub_per_channel - 1));
  } else if (m_.partition_indexing == 2) {
    const unsigned pow2_ch = 1u << unsigned(std::bit_width(m_.n_mem - 1));
    unsigned sp = ipoly_hash(higher, a.sub_partition, pow2_ch * m_.sub_per_channel);
    if (gap) sp %= m_.sub_partitions();
    a.sub_partition = sp;
    a.channel = sp / m_.sub_per_channel;
  }
  return a;
}

gpu_memory::l2_line* gpu_memory::l2_find(unsigned sp, uint64_t line, l2_line*& victim) {
  const unsigned ways = m_.l2.ways, nsp = m_.sub_partitions(), sets = m_.l2.sets;
  // line / sub-partitions % sets, without divisions for powers of two
  const uint64_t q = nsp & (nsp - 1) ? line / nsp : line >> std::countr_zero(nsp);
  const uint64_t set_index = sets & (sets - 1) ? q % sets : q & (sets - 1);
  l2_line* set = &l2_[(size_t(sp) * sets + set_index) * ways];
  for (unsigned w = 0; w < ways; ++w)
    if (set[w].tag == line) return &set[w];
  // A miss: the least recently used way (the first of equals) is the victim.
  victim = set;
  for (unsigned w = 1; w < ways; ++w)
    if (set[w].lru < victim->lru) victim = &set[w];
  return nullptr;
}

// One sector into the L2 -> DRAM queue of `a`'s sub-partition at t_ps (taken at a DRAM edge).
void gpu_memory::dram_push(const dram_address& a, bool write, uint64_t t_ps, uint64_t sector) {
  ch_[a.channel].push({ceil_div(t_ps, dram_ps_), a.row, a.bank, write, sector}, a.sub_partition % m_.sub_per_channel);
  ++dram_queued_;
  if (write) ++st_.dram_writes;
  else ++st_.dram_reads;
  st_.dram_bytes += 32;
}

// Runs the channels to DRAM cycle `until`. A read's data is in L2 one hop after its last beat;
// the fill completes the L2 MSHR: every access merged into it gets its answer through the
// crossbar (unless the waiters belong to a finished kernel's SMs).
void gpu_memory::run_dram(uint64_t until, bool drop_waiters) {
  for (dram_channel& c : ch_) {
    if (c.empty()) continue;
    done_.clear();
    c.run(until, done_);
    for (const dram_done& d : done_) {
      --dram_queued_;
      if (d.write) continue;
      const uint64_t t = d.data_end * dram_ps_ + m_.l2_dram_hops * core_ps_;
      const uint64_t sector = d.token;
      const unsigned sp = decode(sector * 32).sub_partition;
      if (!drop_waiters) sp_[sp].releases.push(t);  // the L2 MSHR entry is free once the fill is in
      l2_line* victim = nullptr;
      if (l2_line* l = l2_find(sp, sector * 32 / m_.l2.line, victim)) {
        const unsigned s = unsigned(sector * 32 % m_.l2.line / 32) % 4;
        if (l->ready_ps[s] == ~0ull) l->ready_ps[s] = t;
      }
      auto* f = fills_.find(sector);
      if (!f) continue;
      const uint64_t back = base_ + ceil_div(t + m_.icnt_latency * icnt_ps_, core_ps_);
      woken_.clear();
      fill_waiters_.drain(*f, woken_);
      fills_.erase(f);
      if (!drop_waiters)
        for (const waiter& w : woken_) w.client->mem_done(sector * 32, false, w.tag, back);
    }
  }
}

// The L2 before the DRAM: an L2 miss served at t <= now enters its L2 -> DRAM queue at the
// first DRAM edge >= t, which the channel has not run yet.
void gpu_memory::cycle(uint64_t cycle) {
  if (!dram_queued_ && !l2_queued_) return;
  const uint64_t now_ps = (cycle - std::min(cycle, base_)) * core_ps_;
  if (l2_queued_) run_l2(now_ps, false);
  if (dram_queued_) run_dram(now_ps / dram_ps_, false);
}

// Each sub-partition serves its input queue in time order up to now_ps, until it stalls.
void gpu_memory::run_l2(uint64_t now_ps, bool drop_replies) {
  for (unsigned sp = 0; sp < sp_.size() && l2_queued_; ++sp) {
    auto& in = sp_[sp].in;
    while (!in.empty() && in.front().t <= now_ps) {
      if (!l2_access(sp, in.front(), now_ps, drop_replies)) break;
      in.pop_front();
      --l2_queued_;
    }
  }
}

mem_stats gpu_memory::stats() const {
  mem_stats s = st_;
  for (const dram_channel& c : ch_) s.dram_row_hits += c.row_hits;
  return s;
}

// An SM's sector request: the crossbar (one packet per interconnect cycle per sub-partition
// output, GPGPU-Sim's local crossbar; a sector fits one -icnt_flit_size flit) and the ROP queue
// are timed now; the L2 serves it from its input queue when cycle() gets there.
uint64_t gpu_memory::access(uint64_t addr, unsigned bytes, bool write, uint64_t cycle, mem_client* client, unsigned tag) {
  (void)bytes;
  const uint64_t start = (cycle - std::min(cycle, base_)) * core_ps_;  // time since the kernel started
  const unsigned sp = decode(addr).sub_partition;
  uint64_t t = std::max(start, port_free_[sp]);
  // -network_mode 2 moves one packet per output per cycle whatever its size; with -network_mode 1
  // a packet (read request: 8 bytes of control, write: 32 + 8) holds the output one cycle per
  // flit of the interconnect file's flit_size.
  const unsigned flits = m_.network_mode == 1 ? unsigned(ceil_div(write ? 40 : 8, m_.icnt_file_flit_size)) : 1;
  port_free_[sp] = t + flits * icnt_ps_;
  t += m_.icnt_latency * icnt_ps_ + cfg_.l2_rop_latency * l2_ps_;
  sp_[sp].in.push_back({t, addr, client, tag, write});
  ++l2_queued_;
  return pending;
}

// One access of sub-partition sp's L2 slice at max(its arrival, the tag port's next free time).
// memory_sub_partition::cache_cycle: no access while the L2 -> DRAM queue is full; a read miss
// needs an MSHR entry (one per sector, -gpgpu_cache:dl2 A:N), a read of a sector whose fill is
// on its way a merge slot (A:N:M). Otherwise the access stalls the input (a reservation fail)
// and is tried again in the next cycle. With drop_replies (between kernels) nothing stalls and
// nobody is answered.
bool gpu_memory::l2_access(unsigned sp, const l2_request& r, uint64_t now_ps, bool drop_replies) {
  sub_partition& P = sp_[sp];
  uint64_t t = std::max(r.t, P.l2_free);
  while (!P.releases.empty() && P.releases.top() <= t) {
    P.releases.pop();
    if (P.mshrs) --P.mshrs;
  }
  const dram_address a = decode(r.addr);
  const uint64_t line = r.addr / m_.l2.line;
  const unsigned sector = unsigned(r.addr % m_.l2.line / 32) % 4;
  const uint8_t bit = uint8_t(1u << sector);
  l2_line* victim = nullptr;
  l2_line* l = l2_find(sp, line, victim);
  if (!drop_replies) {
    bool stall = ch_[a.channel].l2_queue(a.sub_partition % m_.sub_per_channel) >= m_.l2_dram_queue;
    if (!stall && !r.write && !(l && (l->valid & bit) && l->ready_ps[sector] != ~0ull)) {
      auto* f = fills_.find(r.addr / 32);
      if (f) stall = f->count >= m_.l2.mshr_merge;  // joins the fill in DRAM
      else stall = P.mshrs >= m_.l2.mshrs;                                  // a new miss
    }
    if (stall) {
      ++st_.l2_reservation_fails;
      P.l2_free = std::max(P.l2_free, (now_ps / l2_ps_ + 1) * l2_ps_);  // again at the next L2 edge
      return false;
    }
  }
  P.l2_free = t + l2_ps_;
  ++st_.l2_accesses;
  if (!l) {
    // Allocate (on miss): a dirty victim is written back to DRAM in the background.
    l = victim;
    if (l->dirty && l->tag != ~0ull) {
      for (unsigned s = 0; s < 4; ++s)
        if (l->dirty >> s & 1) dram_push(decode(l->tag * m_.l2.line + s * 32), true, t, 0);
    }
    *l = l2_line{};
    l->tag = line;
  }
  l->lru = ++stamp_;
  uint64_t back = t;  // when the answer leaves the L2
  if (r.write) {
    // Write-back L2 with lazy fetch-on-read: the sector is written without a DRAM read.
    ++st_.l2_writes;
    if (l->valid & bit) ++st_.l2_hits;
    else ++st_.l2_misses;
    l->valid |= bit;
    l->dirty |= bit;
    if (l->ready_ps[sector] != ~0ull) l->ready_ps[sector] = std::max(l->ready_ps[sector], t);
  } else if (l->valid & bit) {
    if (l->ready_ps[sector] == ~0ull) {  // the fill is still in DRAM: merged, answered with it
      ++st_.l2_pending_hits;
      fill_waiters_.push_back(*fills_.try_emplace(r.addr / 32).first, {r.client, r.tag});
      return true;
    }
    if (l->ready_ps[sector] > t) {
      ++st_.l2_pending_hits;  // merged into the outstanding fill (MSHR)
      back = l->ready_ps[sector];
    } else {
      ++st_.l2_hits;
    }
  } else {
    l->valid |= bit;
    l->ready_ps[sector] = ~0ull;
    auto [f, fresh] = fills_.try_emplace(r.addr / 32);
    fill_waiters_.push_back(*f, {r.client, r.tag});
    if (!fresh) {  // the line was evicted while its fill was in DRAM: merged into that fill
      ++st_.l2_pending_hits;
      return true;
    }
    ++st_.l2_misses;
    ++P.mshrs;
    dram_push(a, false, t, r.addr / 32);
    return true;
  }
  // Reply through the crossbar.
  if (!drop_replies)
    r.client->mem_done(r.addr, r.write, r.tag, base_ + ceil_div(back + m_.icnt_latency * icnt_ps_, core_ps_));
  return true;
}

void gpu_memory::kernel_start(uint64_t gpu_cycle) {
  run_l2(~0ull, true);    // requests nobody waits for any more
  run_dram(~0ull, true);  // write-backs still queued
  fills_.clear();
  fill_waiters_.clear();
  base_ = gpu_cycle;
  std::fill(port_free_.begin(), port_free_.end(), 0);
  for (sub_partition& P : sp_) {
    P.l2_free = 0;
    P.mshrs = 0;
    P.releases = {};
  }
  for (auto& l : l2_) std::fill(std::begin(l.ready_ps), std::end(l.ready_ps), 0);
  for (auto& c : ch_) c.reset_timing();
}

void gpu_memory::memcpy_to_device(uint64_t addr, uint64_t bytes) {
  for (uint64_t s = addr / 32 * 32; s < addr + bytes; s += 32) {
    const unsigned sp = decode(s).sub_partition;
    const uint64_t line = s / m_.l2.line;
    l2_line* victim = nullptr;
    l2_line* l = l2_find(sp, line, victim);
    if (!l) {
      l = victim;
      *l = l2_line{};
      l->tag = line;
    }
    l->lru = ++stamp_;
    l->valid |= uint8_t(1u << (s % m_.l2.line / 32));
  }
}

std::string gpu_memory::describe() const {
  std::ostringstream os;
  os << "GPGPU-Sim memory system: " << m_.n_mem << " DRAM channels x " << m_.sub_per_channel << " L2 slices ("
     << m_.l2.sets * m_.l2.ways * m_.l2.line / 1024 << " KiB each), crossbar " << m_.icnt_mhz << " MHz, L2 "
     << m_.l2_mhz << " MHz, DRAM " << m_.dram_mhz << " MHz x " << m_.dram_buswidth << " B x "
     << m_.dram_cmd_ratio << " (" << std::fixed << std::setprecision(1)
     << double(m_.n_mem) * m_.dram_buswidth * m_.dram_cmd_ratio * m_.dram_mhz / 1000.0 << " GB/s peak)";
  return os.str();
}

std::unique_ptr<mem_port> make_memory(const gpu_config& cfg, const std::string& kind) {
  if (kind == "gpgpu-sim") return std::make_unique<gpu_memory>(cfg);
  if (kind == "fixed") return std::make_unique<fixed_latency_memory>(cfg.l2_rop_latency + cfg.dram_latency);
  throw std::invalid_argument("memory model '" + kind + "' (gpgpu-sim or fixed)");
}

}  // namespace gpuvp::sm
