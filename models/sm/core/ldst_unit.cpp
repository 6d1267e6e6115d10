// SPDX-License-Identifier: Apache-2.0
#include "ldst_unit.h"

#include <algorithm>
#include <bit>
#include <functional>

#include "icache.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "sm_core.h"

namespace gpuvp::sm {

ldst_unit::ldst_unit(sm_core& core, const gpu_config& cfg, l1_tags* tags)
    : stallable_unit("LDST"), core_(core), cfg_(cfg), tags_(tags), icnt_node_(core.id() / std::max(1u, cfg.cores_per_cluster)) {
  const unsigned per_line = std::max(1u, cfg.l1_line / 32);
  sector_shift_ = unsigned(std::countr_zero(per_line));
  if (tags_->tag.size() != size_t(cfg.l1_sets) * cfg.l1_ways || tags_->ways != cfg.l1_ways || tags_->sectors != per_line)
    tags_->reset(cfg.l1_sets, cfg.l1_ways, per_line);
  mshr_at_.assign(tags_->written.size(), mshr_none);  // (written: one per line and sector)
  banks_.resize(cfg.mem.l1_banks);
  if (std::has_single_bit(banks_.size())) bank_mask_ = unsigned(banks_.size() - 1);
}

unsigned ldst_unit::new_slot(const warp_inst& w) {
  unsigned s;
  if (!free_slots_.empty()) {
    s = free_slots_.back();
    free_slots_.pop_back();
  } else {
    s = unsigned(slots_.size());
    slots_.emplace_back();
  }
  slots_[s].inst = w;
  slots_[s].outstanding = 0;
  return s;
}

void ldst_unit::complete_slot(unsigned slot) {
  core_.complete(slots_[slot].inst);
  free_slots_.push_back(slot);
}

// The victim way of a miss (l1_tags::victim) takes the line.
size_t ldst_unit::allocate_line(uint64_t line) {
  const uint32_t victim = tags_->victim(unsigned(line % cfg_.l1_sets));
  if (victim == l1_tags::none) return SIZE_MAX;
  // No tag_gen_ step: an evicted line's load that failed for want of an MSHR fails so again
  // unless its set is now all reserved, which the caller's reservation counts (repeats_fail).
  if (tags_->tag[victim] != ~0ull) {
    tags_->where.erase(tags_->where.find(tags_->tag[victim]));
    orphan_mshrs(victim);
  }
  tags_->tag[victim] = line;
  *tags_->where.try_emplace(line).first = victim;
  tags_->valid[victim] = 0;
  tags_->modified[victim] = 0;
  tags_->modified_on_fill[victim] = 0;
  std::fill_n(&tags_->written[size_t(victim) * tags_->sectors], tags_->sectors, 0u);
  tags_->touch(victim);
  return victim;
}

// The common coalescing case: all 32 lanes active, lane t at the first lane's address + t *
// width. Their sectors are the run from the first lane's to the last lane's (sectors_, in order).
bool ldst_unit::linear_lanes(const warp_inst& w, unsigned width) {
  if (w.active_mask != ~0u) return false;
  const uint64_t* a = w.addrs;
#if defined(__SSE2__)
  // Two lanes a step: the bits where a lane differs from its place in the run, ORed.
  const __m128i step = _mm_set1_epi64x(int64_t(2 * uint64_t(width)));
  __m128i expected = _mm_set_epi64x(int64_t(a[0] + width), int64_t(a[0])), off = _mm_setzero_si128();
  for (unsigned t = 0; t < 32; t += 2, expected = _mm_add_epi64(expected, step))
    off = _mm_or_si128(off, _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + t)), expected));
  if (_mm_movemask_epi8(_mm_cmpeq_epi8(off, _mm_setzero_si128())) != 0xffff) return false;
#else
  bool linear = true;
  for (unsigned t = 1; t < 32; ++t) linear &= a[t] == a[0] + uint64_t(t) * width;
  if (!linear) return false;
#endif
  for (uint64_t b = a[0] / 32, last = (a[0] + 32ull * width - 1) / 32; b <= last; ++b) sectors_.push_back(b);
  return true;
}

void ldst_unit::prepare() {
  const warp_inst& w = dispatch_reg_;
  prepared_ = true;
  slot_ = new_slot(w);
  slots_[slot_].outstanding = 1;  // held until the last access is made
  full_bank_ = nullptr;
  sectors_.clear();
  conflict_cycles_ = 0;
  bypass_ = cfg_.gmem_skip_l1d && w.space == mem_space::global;
  // Past the L1D, a memory that takes more than a sector gets coalesced segments (bypass_send).
  segment_ = 32;
  if (bypass_ && core_.mem_ && core_.mem_->packet_bytes() >= 128) segment_ = w.width == 1 ? 32 : w.width == 2 ? 64 : 128;
  if (w.space == mem_space::shared) {
    // Bank conflict degree: the most distinct 4-byte words any one bank must deliver.
    std::vector<std::vector<uint64_t>> banks(cfg_.smem_banks);
    unsigned degree = 1;
    for (unsigned t = 0; t < 32; ++t) {
      if (!(w.active_mask >> t & 1) || !w.addrs) continue;
      uint64_t word = w.addrs[t] / 4;
      auto& b = banks[word % cfg_.smem_banks];
      if (std::find(b.begin(), b.end(), word) == b.end()) b.push_back(word);
      degree = std::max(degree, unsigned(b.size()));
    }
    conflict_cycles_ = degree;
    ++core_.st_.smem_accesses;
    core_.st_.smem_bank_conflict_cycles += degree - 1;
  } else if ((w.space == mem_space::global || w.space == mem_space::local) && w.addrs) {
    // Coalescing (gpgpu_coalesce_arch >= 40: L1 and L2 sectored): one access per 32-byte sector
    // the lanes' bytes [addr, addr + width) cover. GPGPU-Sim keeps them by address and takes them
    // from the back of its access queue: the highest address first.
    const unsigned width = std::max<unsigned>(1, w.width);
    if (!linear_lanes(w, width)) {
      uint64_t back = ~0ull;  // sectors_.back()
      for (uint32_t lanes = w.active_mask; lanes; lanes &= lanes - 1) {
        const uint64_t addr = w.addrs[std::countr_zero(lanes)], last = (addr + width - 1) / 32;
        for (uint64_t b = addr / 32 + (addr / 32 == back); b <= last; ++b) sectors_.push_back(b);  // neighbours often share one
        back = last;
      }
      // Lanes in address order leave them sorted and distinct already.
      if (std::adjacent_find(sectors_.begin(), sectors_.end(), std::greater_equal<>()) != sectors_.end()) {
        std::sort(sectors_.begin(), sectors_.end());
        sectors_.erase(std::unique(sectors_.begin(), sectors_.end()), sectors_.end());
      }
    }
    if (w.store) {  // the bytes each sector's access writes (mem_access_t's byte mask)
      sector_bytes_.assign(sectors_.size(), 0);
      for (unsigned t = 0; t < 32; ++t) {
        if (!(w.active_mask >> t & 1)) continue;
        for (uint64_t b = w.addrs[t]; b < w.addrs[t] + width; ++b) {
          const size_t i = size_t(std::lower_bound(sectors_.begin(), sectors_.end(), b / 32) - sectors_.begin());
          sector_bytes_[i] |= uint32_t(1) << (b % 32);
        }
      }
    }
  }
}

uint32_t ldst_unit::new_mshr(uint64_t sector, uint32_t idx) {
  uint32_t m;
  if (!free_mshrs_.empty()) {
    m = free_mshrs_.back();
    free_mshrs_.pop_back();
  } else {
    m = uint32_t(mshr_pool_.size());
    mshr_pool_.emplace_back();
  }
  ++mshrs_used_;
  mshr_entry& e = mshr_pool_[m];
  e = mshr_entry{};
  e.sector = sector;
  e.index = idx;
  e.mapped = uint32_t(size_t(idx) * tags_->sectors + (sector & (tags_->sectors - 1)));
  mshr_at_[e.mapped] = m;  // (free: the line's other entries were orphaned when it was evicted)
  return m;
}

void ldst_unit::erase_mshr(uint32_t m) {
  mshr_entry& e = mshr_pool_[m];
  if (e.mapped != mshr_none)
    mshr_at_[e.mapped] = mshr_none;
  else
    orphans_.erase(std::find(orphans_.begin(), orphans_.end(), m));
  free_mshrs_.push_back(m);
  --mshrs_used_;
}

// The line at tag index idx leaves it: its sectors' entries are found by a scan from now on.
void ldst_unit::orphan_mshrs(uint32_t idx) {
  uint32_t* at = &mshr_at_[size_t(idx) * tags_->sectors];
  for (unsigned s = 0; s < tags_->sectors; ++s) {
    if (at[s] == mshr_none) continue;
    mshr_pool_[at[s]].mapped = mshr_none;
    orphans_.push_back(at[s]);
    at[s] = mshr_none;
  }
}

// One sector access at the end of its bank's latency pipeline (GPGPU-Sim's L1D access from
// l1_latency_queue stage 0). Loads: a hit, a pending hit (merged into the sector's MSHR) or a
// miss (a new MSHR and a miss-queue entry); a read needs a miss-queue entry free beyond the
// one it may take (data_cache::miss_queue_full(1)), then an MSHR entry or merge slot. Stores:
// store_access. A failure is a reservation fail by cause; the access stays in stage 0 and is
// tried again next cycle.
bool ldst_unit::global_access(l1_bank& b, uint64_t now) {
  const pipe_entry& a = b.pipe.front();
  if (a.store) return store_access(b, a, now);
  sm_stats& st = core_.st_;
  const mem_config& m = cfg_.mem;
  const uint64_t line = a.sector >> sector_shift_;
  const uint8_t bit = uint8_t(1u << (a.sector & (tags_->sectors - 1)));
  size_t idx = bank_line(b, line);
  if (idx != SIZE_MAX && (tags_->valid[idx] & bit)) {
    ++l1_gen_;
    tags_->touch(idx);
    ++st.l1_accesses;
    ++st.l1_hits;
    done_one(a.slot);  // the data after the L1 latency, which the pipeline was
    return true;
  }
  // tag_array::probe first: a line not present needs a way without a pending fill (all_reserved:
  // LINE_ALLOC_FAIL), then the miss queue, then the MSHRs.
  if (idx == SIZE_MAX && tags_->set_reserved[line % cfg_.l1_sets] == cfg_.l1_ways) {
    ++st.l1_fails[last_fail_ = unsigned(l1_fail::line_alloc)];
    return false;
  }
  if (miss_queue_.size() + 1 >= m.l1.miss_queue) {
    ++st.l1_fails[last_fail_ = unsigned(l1_fail::miss_queue_full)];
    return false;
  }
  if (mshr_entry* e = b.no_mshr ? nullptr : find_mshr(a.sector, idx)) {
    if (e->count >= cfg_.l1_mshr_merge) {
      ++st.l1_fails[last_fail_ = unsigned(l1_fail::mshr_merge)];
      return false;
    }
    ++l1_gen_;
    ++st.l1_accesses;
    ++st.l1_pending_hits;
    add_waiter(*e, a.slot);
    return true;
  }
  b.no_mshr = true;
  if (mshrs_used_ >= cfg_.l1_mshrs) {
    ++st.l1_fails[last_fail_ = unsigned(l1_fail::mshr_entry)];
    return false;
  }
  ++l1_gen_;
  if (idx == SIZE_MAX) idx = allocate_line(line);  // allocate on miss (a way is free: checked above)
  if (!tags_->reserved[idx] && ++tags_->set_reserved[line % cfg_.l1_sets] == cfg_.l1_ways) ++tag_gen_;
  tags_->reserved[idx] |= bit;
  // allocate_sector: a MODIFIED sector (partly written) stays MODIFIED after its fill.
  tags_->modified_on_fill[idx] = uint8_t((tags_->modified_on_fill[idx] & ~bit) | (tags_->modified[idx] & bit));
  tags_->touch(idx);
  ++st.l1_accesses;
  ++st.l1_misses;
  ++st.mem_reads;
  const uint32_t entry = new_mshr(a.sector, uint32_t(idx));
  add_waiter(mshr_pool_[entry], a.slot);
  miss_queue_.push_back({a.sector, now + 1, false, entry, mem_port::whole_sector});
  return true;
}

// A store: write-through, one miss-queue entry (miss_queue_full(0)). With the lazy fetch-on-read
// write-allocate policy (-gpgpu_cache:dl1 write-allocate L, data_cache::wr_hit_wt and
// wr_miss_wa_lazy_fetch_on_read) the store also writes the L1: a line not present takes a way
// (none without a pending fill: LINE_ALLOC_FAIL, checked before the miss queue as
// process_tag_probe does), the sector becomes MODIFIED, no longer RESERVED if its fill is
// pending (the fill then leaves it MODIFIED), and readable by loads once all its 32 bytes are
// written (update_m_readable; a partial write makes it unreadable until then, or until a
// pending fill arrives). Other write-allocate policies: a miss is written through only (as N,
// wr_miss_no_wa). Every store counts in the L1's accesses as a hit, a pending hit (its sector's
// fill is due) or a miss, as GPGPU-Sim's cache statistics count writes.
bool ldst_unit::store_access(l1_bank& b, const pipe_entry& a, uint64_t now) {
  sm_stats& st = core_.st_;
  const unsigned per_line = tags_->sectors;
  const uint64_t line = a.sector >> sector_shift_;
  const unsigned s = unsigned(a.sector & (per_line - 1));
  const uint8_t bit = uint8_t(1u << s);
  const bool allocate = cfg_.mem.l1.write_alloc == 'L';
  size_t idx = bank_line(b, line);
  // tag_array::probe for a write: HIT (VALID or MODIFIED), HIT_RESERVED, or a (sector) miss.
  const bool reserved = idx != SIZE_MAX && (tags_->reserved[idx] & bit);
  const bool hit = idx != SIZE_MAX && !reserved && ((tags_->valid[idx] | tags_->modified[idx]) & bit);
  if (allocate && idx == SIZE_MAX && tags_->set_reserved[line % cfg_.l1_sets] == cfg_.l1_ways) {
    ++st.l1_fails[last_fail_ = unsigned(l1_fail::line_alloc)];
    return false;
  }
  if (miss_queue_.size() >= cfg_.mem.l1.miss_queue) {
    ++st.l1_fails[last_fail_ = unsigned(l1_fail::miss_queue_full)];
    return false;
  }
  ++l1_gen_;
  ++tag_gen_;
  ++st.l1_write_accesses;
  ++st.l1_accesses;  // counted by the probe's outcome, as GPGPU-Sim's select_stats_status
  ++(hit ? st.l1_hits : reserved ? st.l1_pending_hits : st.l1_misses);
  miss_queue_.push_back({a.sector, now + 1, true, a.slot, a.bytes});
  if (!hit) {
    if (!allocate) return true;                      // wr_miss_no_wa: written through, the tags untouched
    if (idx == SIZE_MAX) idx = allocate_line(line);  // a way is free: checked above
    if (reserved) {                                  // MODIFIED from now, its fill still due
      tags_->reserved[idx] &= uint8_t(~bit);
      if (!tags_->reserved[idx]) --tags_->set_reserved[line % cfg_.l1_sets];
      tags_->modified_on_fill[idx] |= bit;  // HIT_RESERVED: set_modified_on_fill
    } else {
      tags_->modified_on_fill[idx] &= uint8_t(~bit);  // allocate / allocate_sector of a sector not MODIFIED
    }
    tags_->valid[idx] &= uint8_t(~bit);  // readable only once its bytes are all written
  }
  // wr_hit_wt keeps the sector's readability; both make it MODIFIED with the bytes written.
  tags_->touch(idx);
  uint32_t& bytes = tags_->written[idx * per_line + s];  // the line's byte mask (cleared when it is allocated)
  bytes |= a.bytes;
  tags_->modified[idx] |= bit;
  if (bytes == ~0u) tags_->valid[idx] |= bit;
  return true;
}

// Each bank's oldest access reaches stage 0 -gpgpu_l1_latency cycles after it entered, and not
// before the cycle after its predecessor left; there it makes its L1 access, banks in order.
// Keeps next_bank_, the first arrival after `now` (bank_event(now)), on the way.
void ldst_unit::run_banks(uint64_t now) {
  // The last pass made no access, every access it found in stage 0 failed for want of an MSHR
  // entry and none has arrived since: while the MSHRs stay full with room in the miss queue and
  // no tag change that matters happened (repeats_fail), each fails so again.
  if (bank_fails_ && bank_fails_ <= 0xffff && !banks_moved_ && next_bank_ > now && tag_gen_ == banks_tag_gen_ && mshrs_blocked() &&
      core_.skip_idle) {
    static_assert(unsigned(l1_fail::mshr_entry) == 0, "bank_fails_'s low 16 bits");
    core_.st_.l1_fails[unsigned(l1_fail::mshr_entry)] += bank_fails_;
    return;
  }
  next_bank_ = UINT64_MAX;
  bank_fails_ = 0;
  banks_tag_gen_ = tag_gen_;
  banks_moved_ = false;
  if (!in_pipe_) return;
  for (l1_bank& b : banks_) {
    if (b.arrival > now) {
      next_bank_ = std::min(next_bank_, b.arrival);  // (UINT64_MAX: empty)
      continue;
    }
    if (repeats_fail(b)) {
      ++core_.st_.l1_fails[b.fail_cause];
      bank_fails_ += uint64_t(1) << (16 * b.fail_cause);
      continue;
    }
    if (!global_access(b, now)) {
      b.fail_cause = last_fail_;
      b.fail_gen = last_fail_ == unsigned(l1_fail::mshr_entry) ? tag_gen_ : l1_gen_;
      b.fail_pops = mq_pops_;
      bank_fails_ += uint64_t(1) << (16 * last_fail_);
      continue;
    }
    b.pop_front(now, cfg_.l1_latency);
    --in_pipe_;
    banks_moved_ = true;
    next_bank_ = std::min(next_bank_, b.arrival);
  }
}

// ldst_unit::writeback, first in the LDST unit's cycle. The access taken last cycle is written
// back if the banks of its destination registers are free (opndcoll_rfu_t::writeback: this
// cycle's ALU write-backs hold theirs; a bank taken stays taken for the next try); the last
// access of an instruction releases its registers. Then, with the stage free, the next access of
// the oldest filled sector is taken, which releases that sector's MSHR entry with its last one.
void ldst_unit::writeback() {
  if (wb_slot_ != ~0u) {
    const warp_inst& w = slots_[wb_slot_].inst;
    for (int d = 0; d < w.ndst; ++d) {
      if (!(wb_dsts_ >> d & 1)) continue;
      const unsigned b = core_.bank_of(w.dst[d], w.warp, w.sched);
      if (core_.bank_write_[b]) return;  // again next cycle
      core_.bank_write_[b] = 1;
      core_.bank_write_any_ = true;
      wb_dsts_ &= uint8_t(~(1u << d));
    }
    const unsigned s = wb_slot_;
    wb_slot_ = ~0u;
    done_one(s);
  }
  // The free stage serves the first ready client from the round robin's pointer, which then
  // moves past it.
  const uint64_t now = core_.cycle_;
  const unsigned ready = unsigned(smem_ready() <= now) << wb_shared | unsigned(next_global_ != ~0u) << wb_global |
                         unsigned(filled_head_ != mshr_none) << wb_l1d;
  if (!ready) return;
  // The ready clients seen from the pointer: bit i is client (wb_arb_ + i) % wb_clients.
  const unsigned from_pointer = (ready >> wb_arb_ | ready << (wb_clients - wb_arb_)) & ((1u << wb_clients) - 1);
  const unsigned client = (wb_arb_ + unsigned(std::countr_zero(from_pointer))) % wb_clients;
  if (client == wb_shared) {
    wb_slot_ = smem_pipe_.front().slot;
    smem_pipe_.pop_front();
    smem_left_ = now + 1;
  } else if (client == wb_global) {
    wb_slot_ = next_global_;
    next_global_ = ~0u;
  } else {
    const uint32_t m = filled_head_;
    mshr_entry& e = mshr_pool_[m];
    wb_slot_ = take_waiter(e);
    ++l1_gen_;  // a merge slot is free again (and the MSHR entry, with the last waiter)
    if (e.count == 0) {
      filled_head_ = e.next_filled;
      erase_mshr(m);
    }
  }
  wb_arb_ = (client + 1) % wb_clients;
  const warp_inst& w = slots_[wb_slot_].inst;
  wb_dsts_ = 0;
  for (int d = 0; d < w.ndst; ++d)
    if (!is_zero_reg(w.dst[d])) wb_dsts_ |= uint8_t(1u << d);
}

void ldst_unit::cycle() {
  const uint64_t now = core_.cycle_;
  if (quiet_ && now < next_event_ && (prepared_ || dispatch_reg_.empty())) {
    repeat_cycle(now);
    return;
  }
  if (busy()) ++active_cycles;  // an access being made or outstanding
  if (wb_pending() || smem_ready() <= now) writeback();
  if (events_due(now) || !cluster_fifo_.empty())
    take_events(now);  // and the response FIFO's step
  else if (!responses_.empty())
    take_response();
  if (!miss_queue_.empty() && miss_queue_.front().ready <= now) send_miss(now);
  run_banks(now);
  if (dispatch_reg_.empty()) {
    occupied_.shift();
    end_cycle(now);
    return;
  }
  if (!prepared_) prepare();
  if (full_bank_ && full_bank_->pipe.size() >= cfg_.l1_latency) {  // global_step: its next access's bank still full
    occupied_.shift();
    end_cycle(now);
    return;
  }
  const bool finished = dispatch_reg_.space == mem_space::shared ? shared_step(now) : global_step(now);
  if (finished) {
    dispatch_reg_.clear();
    done_one(slot_);  // drop the hold: completes now if nothing is outstanding
  }
  occupied_.shift();
  end_cycle(now);
}

// The events due now: completions, and the answers the crossbar gave the cluster, which enter
// its response FIFO (simt_core_cluster::m_response_fifo) in the order they came. Its head moves
// into the LDST unit's response FIFO (ldst_unit::m_response_fifo) while that holds fewer than
// -gpgpu_n_ldst_response_buffer_size (icnt_cycle, before the core's cycle), whose head leaves it,
// one a cycle (ldst_unit::cycle, take_response). Runs when an event is due or the cluster's FIFO
// holds one: an answer popped by now has its event due then, so popped_ is kept here. With both
// FIFOs empty, the first answer due would go through both and leave in this cycle: it is served
// at once, past them.
void ldst_unit::take_events(uint64_t now) {
  bool direct = cluster_fifo_.empty() && responses_.empty(), moved = false;
  while (events_due(now)) {
    const event e = events_.top();
    events_.pop();
    if (e.kind == ev::done) {
      done_one(unsigned(e.key));
    } else if (direct) {
      direct = false;
      moved = true;
      if (!serve({e.kind, e.mshr, e.key})) responses_.push_back({e.kind, e.mshr, e.key});  // a reply waiting for client 3
    } else {
      cluster_fifo_.push_back({e.kind, e.mshr, e.key});
    }
  }
  while (!popped_.empty() && popped_.front() <= now) popped_.pop_front();
  if (moved) return;  // this cycle's hand-over and response step are done
  if (!cluster_fifo_.empty() && responses_.size() < cfg_.mem.ldst_response_buffer) {
    responses_.push_back(cluster_fifo_.front());
    cluster_fifo_.pop_front();
  }
  if (!responses_.empty()) take_response();
}

// The LDST unit's response FIFO's head leaves it: a store's acknowledgement always (store_ack),
// a sector fill into the L1 (its fill port is free again every cycle), a bypassing load's access
// into the write-back stage's client 3 when that holds none (else it waits, and every answer
// behind it, an acknowledgement too).
void ldst_unit::take_response() {
  if (serve(responses_.front())) responses_.pop_front();
}

bool ldst_unit::serve(const response& r) {
  if (r.kind == ev::ack) {
    done_one(unsigned(r.key));
  } else if (r.kind == ev::fill) {
    fill_sector(r.mshr);
  } else if (next_global_ == ~0u) {
    next_global_ = unsigned(r.key);
  } else {
    return false;
  }
  return true;
}

// Asked by the memory before the SM step of its cycle `cycle`: the cluster's response FIFO after
// this cycle's hand-over (take_events) holds -gpgpu_n_cluster_ejection_buffer_size answers, so
// the cluster pops none from the reply crossbar (icnt_cycle). It holds the answers popped and
// not yet handed over: those in it and those popped in the cycle before (mem_done: due now).
// (Answers due earlier that the SM has not taken yet exist only while the memory runs ahead of
// the SMs, as gpu_l2's does for another engine: their SM cycles are still to come.)
bool ldst_unit::reply_fifo_full(uint64_t cycle) const {
  const uint64_t now = cycle - std::min(cycle, core_.mem_base_);
  size_t held = cluster_fifo_.size();
  for (size_t i = 0; i < popped_.size() && popped_[i] <= now; ++i) held += popped_[i] == now;
  const size_t handed = held && responses_.size() < cfg_.mem.ldst_response_buffer ? 1 : 0;
  return held - handed >= cfg_.mem.cluster_ejection_buffer;
}

// baseline_cache::fill with allocate-on-miss (tag_array::fill(index, ...)): the sector of the
// L1 index its miss took becomes VALID, or MODIFIED if a store wrote it while the fill was due
// (m_set_modified_on_fill), readable either way, and no longer RESERVED. That index holds another
// line by now if the miss's line was replaced meanwhile (a store made its sector MODIFIED, no
// longer reserved: is_reserved_line); that line's sector is filled then, as GPGPU-Sim does. The
// MSHR entry becomes ready by address; it is released when the write-back stage has taken its
// last access (mshr_table::next_access).
void ldst_unit::fill_sector(uint32_t m) {
  ++l1_gen_;
  mshr_entry& e = mshr_pool_[m];
  (filled_head_ == mshr_none ? filled_head_ : mshr_pool_[filled_tail_].next_filled) = m;
  filled_tail_ = m;
  e.next_filled = mshr_none;
  if (e.index == l1_tags::none) return;
  const uint64_t key = e.sector;
  const uint32_t idx = e.index;
  e.index = l1_tags::none;
  if (tags_->tag[idx] != key >> sector_shift_) ++tag_gen_;  // the miss's line was replaced: another line's sector
  const uint8_t bit = uint8_t(1u << (key % tags_->sectors));
  tags_->valid[idx] |= bit;
  tags_->modified[idx] = uint8_t((tags_->modified[idx] & ~bit) | (tags_->modified_on_fill[idx] & bit));
  if (tags_->reserved[idx] & bit) {
    tags_->reserved[idx] &= uint8_t(~bit);
    if (!tags_->reserved[idx]) --tags_->set_reserved[idx / tags_->ways];
  }
}

// The miss queue sends one request per cycle to the memory side, if that has room for it
// (baseline_cache::cycle: !m_memport->full(), the cluster's crossbar input buffer), before
// this cycle's L1 accesses, as GPGPU-Sim's L1D cycle comes before L1_latency_queue_cycle. The
// memory side counts the request from the cycle before (its hand-offs are numbered from the
// L1 access's cycle, docs/models/gpu_memory.md).
void ldst_unit::send_miss(uint64_t now) {
  if (core_.mem_->full(this)) return;
  const request r = miss_queue_.front();
  miss_queue_.pop_front();
  ++mq_pops_;
  const uint64_t sent = now - 1;
  const uint64_t lat = core_.mem_->access(r.sector_addr * 32, 32, r.write, r.written, sent + core_.mem_base_, this, r.slot);
  if (r.write) ++core_.st_.mem_writes;
  if (lat == mem_port::pending)
    ++awaiting_;
  else if (r.write)
    events_.push({sent + lat, ev::ack, r.slot});
  else
    events_.push({fill_cycle(sent + lat), ev::fill, r.sector_addr, r.slot});
}

// A shared-memory instruction's cycle in the dispatch register; true when it leaves it. The
// instruction stays `degree` cycles (shared_cycle's dispatch delay). A store is done then
// ("stores exit pipeline here"); a load enters the last stage of the -gpgpu_smem_latency
// pipeline if it is free, moves down a stage a cycle while the one below is free and waits in
// stage 0 for the write-back stage (ldst_unit::writeback, client 0).
bool ldst_unit::shared_step(uint64_t now) {
  if (conflict_cycles_ > 1) {
    --conflict_cycles_;
    return false;
  }
  if (dispatch_reg_.store) return true;
  if (smem_pipe_.size() < cfg_.smem_latency) {
    conflict_cycles_ = 0;
    ++slots_[slot_].outstanding;
    smem_pipe_.push_back({slot_, now + cfg_.smem_latency});
    return true;
  }
  return false;
}

// Any other memory instruction's cycle in the dispatch register; true when it leaves it.
bool ldst_unit::global_step(uint64_t now) {
  inflight& f = slots_[slot_];
  const warp_inst& w = dispatch_reg_;
  if (bypass_) {
    bypass_send(now);
    return sectors_.empty();
  }
  if (sectors_.empty()) {
    // constant cache, or a memory opcode traced without addresses: an L1-latency access
    ++f.outstanding;
    events_.push({now + cfg_.l1_latency, ev::done, slot_});
    return true;
  }
  // ldst_unit::memory_cycle: up to -gpgpu_l1_banks accesses a cycle, each into the last stage
  // of its bank's pipeline (-gpgpu_l1_latency stages), stopping at the first whose stage is
  // taken (a bank conflict: again next cycle). full_bank_: the first access's bank was full, so
  // none enters until that bank's oldest access leaves (cycle() waits for it; not where the
  // memory wants each try's mem_fetch).
  full_bank_ = nullptr;
  for (unsigned j = 0; j < banks_.size() && !sectors_.empty(); ++j) {
    const uint64_t sec = sectors_.back();
    if (core_.decodes_) core_.mem_->decoded(sec * 32, this);  // its mem_fetch, made before the bank is looked at
    l1_bank& b = banks_[bank_of(sec)];
    if (b.placed == now || b.pipe.size() >= std::max(1u, cfg_.l1_latency)) {
      if (j == 0 && b.placed != now && cfg_.l1_latency && !core_.decodes_) full_bank_ = &b;
      break;
    }
    b.placed = now;
    if (b.pipe.empty()) {
      b.arrival = std::max(now + cfg_.l1_latency, b.left);
      next_bank_ = std::min(next_bank_, b.arrival);  // (latency 0: run_banks below)
    }
    b.pipe.push_back({sec, now, slot_, w.store ? sector_bytes_[sectors_.size() - 1] : 0u, w.store});
    ++in_pipe_;
    ++f.outstanding;
    sectors_.pop_back();
  }
  const bool finished = sectors_.empty();
  if (cfg_.l1_latency == 0) run_banks(now);
  return finished;
}

// -gpgpu_gmem_skip_L1D (ldst_unit::memory_cycle with bypassL1D): the next access goes straight
// into the cluster's crossbar input, one a cycle, if it has room (else ICNT_RC_FAIL, again next
// cycle); no L1D access, tag or MSHR. A store is acknowledged by its write ack; a load's data
// comes back through the response FIFO to the write-back stage's uncached-global client. The
// memory side numbers the hand-off from the cycle before, as for the miss queue's.
void ldst_unit::bypass_send(uint64_t now) {
  if (sectors_.empty() || core_.mem_->full(this)) return;
  const warp_inst& w = dispatch_reg_;
  const uint64_t sector = sectors_.back();
  uint32_t bytes = w.store ? sector_bytes_[sectors_.size() - 1] : mem_port::whole_sector;
  uint64_t addr = sector * 32;
  unsigned size = 32, count = 1;
  if (segment_ > 32) {
    // Where the memory takes more than a sector (a non-sectored L2), GPGPU-Sim's coalescing
    // before sectored L1s (-gpgpu_coalesce_arch below 20, warp_inst_t::memory_coalescing_arch):
    // one access per segment the lanes touch (128 bytes for 4-, 8- and 16-byte accesses, 64 for
    // 2, 32 for 1), reduced by memory_coalescing_arch_reduce_and_send to the half (64 bytes) or
    // quarter (32) in use when the touched 32-byte chunks all lie in it; the highest first.
    const uint64_t block = addr / segment_;
    unsigned chunks = 0;
    size_t k = sectors_.size();
    for (; k > 0 && sectors_[k - 1] * 32 / segment_ == block; --k) chunks |= 1u << (sectors_[k - 1] * 32 % segment_ / 32);
    count = unsigned(sectors_.size() - k);
    addr = block * segment_;
    size = segment_;
    if (size == 128 && !(chunks & 12)) {
      size = 64;
    } else if (size == 128 && !(chunks & 3)) {
      size = 64;
      addr += 64;
      chunks >>= 2;
    }
    if (size == 64 && !(chunks & 2)) {
      size = 32;
    } else if (size == 64 && !(chunks & 1)) {
      size = 32;
      addr += 32;
    }
    if (size > 32) bytes = mem_port::whole_sector;  // (a write of several sectors: their whole words)
  }
  sectors_.resize(sectors_.size() - count);
  ++slots_[slot_].outstanding;
  const uint64_t sent = now - 1;
  const uint64_t lat = core_.mem_->access(addr, size, w.store, bytes, sent + core_.mem_base_, this, w.store ? slot_ : slot_ | bypass_tag);
  ++(w.store ? core_.st_.mem_writes : core_.st_.mem_reads);
  if (lat == mem_port::pending)
    ++awaiting_;
  else
    events_.push({w.store ? sent + lat : fill_cycle(sent + lat), w.store ? ev::ack : ev::reply, slot_});
}

// A cycle before next_event_ after a quiet one (end_cycle): nothing is due, so the write-back
// stage, the events and FIFOs, the miss queue and the dispatch register have nothing to do, and
// every bank's access in stage 0 fails again for its cause (the L1 state is as its last try
// left it); what is left is the counts.
void ldst_unit::repeat_cycle(uint64_t now) {
  if (busy()) ++active_cycles;
  for (unsigned c = 0; c < unsigned(l1_fail::n); ++c) core_.st_.l1_fails[c] += bank_fails_ >> (16 * c) & 0xffff;
  occupied_.shift();
  ran_ = now;
}

void ldst_unit::end_cycle(uint64_t now) {
  ran_ = now;
  quiet_ = false;
  if (wb_pending() || bypass_pending() || !responses_.empty() || !cluster_fifo_.empty()) {
    next_event_ = now + 1;  // they work every cycle
    return;
  }
  // Quiet: the banks made no access (each access in stage 0 failed, and fails again while the
  // state stays) and the dispatch register is empty or waits for a full bank. Until an event is
  // due or an instruction is issued, the next cycles repeat this one's counts (repeat_cycle).
  // (Off with the SM's idle skip, so that the statistics can be compared with and without it.)
  quiet_ = core_.skip_idle && !banks_moved_ && (dispatch_reg_.empty() || (full_bank_ && full_bank_->pipe.size() >= cfg_.l1_latency));
  next_event_ = std::min({events_.empty() ? UINT64_MAX : events_.top().at, std::max(now + 1, smem_ready()), next_bank_});
  if (!miss_queue_.empty()) next_event_ = std::min(next_event_, miss_queue_.front().ready);
}

bool ldst_unit::icache_send(uint64_t addr, uint64_t sent) {
  if (core_.mem_->full(this)) return false;
  const uint64_t lat =
      core_.mem_->access(addr, core_.icache_->request_bytes, false, mem_port::whole_sector, sent + core_.mem_base_, this, icache_tag);
  if (lat != mem_port::pending) core_.icache_->fills.push_back({fill_cycle(sent + lat), addr});
  return true;
}

// A completion the memory delivers later: an event in the SM's cycles.
void ldst_unit::mem_done(uint64_t addr, bool write, unsigned tag, uint64_t cycle) {
  const uint64_t at = cycle - std::min(cycle, core_.mem_base_);
  if (!write && tag == icache_tag) {  // an L1I sector: filled in the cycle the L1D's would be
    core_.icache_->fills.push_back({fill_cycle(at), addr});
    core_.wake_by(fill_cycle(at));
    return;
  }
  --awaiting_;
  const uint64_t e = write ? at : fill_cycle(at);
  // A bypassing load's reply (its slot's instruction is a global load past the L1D) or a fill.
  const bool bypassed = !write && (tag & bypass_tag);
  // (a fill's tag is its MSHR entry: send_miss)
  events_.push({e, write ? ev::ack : bypassed ? ev::reply : ev::fill, write ? tag : bypassed ? tag & ~bypass_tag : addr / 32, tag});
  popped_.push_back(e);
  next_event_ = std::min(next_event_, e);
  core_.wake_by(e);
}

}  // namespace gpuvp::sm
