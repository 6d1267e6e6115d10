// SPDX-License-Identifier: Apache-2.0
// memory_system's L2 slices (memsys.h): the tag lookup and allocation, one access's checks and
// outcome (data_cache::access and its write / read policies), the MSHR entries, their fills and
// the ready list their accesses leave from (mshr_table, baseline_cache::fill).
#include <algorithm>
#include <tuple>

#include "memsys.h"

namespace gpuvp::gpu_memory {

memory_system::l2_line* memory_system::l2_find(unsigned sp, uint64_t line, l2_line*& victim, uint64_t t) {
  const unsigned ways = m_.l2.ways, sets = m_.l2.sets;
  const size_t base = (size_t(sp) * sets + l2_set(line)) * ways;
  const uint64_t* tag = &l2_tag_[base];
  for (unsigned w = 0; w < ways; ++w)
    if (tag[w] == line) return &l2_[base + w];
  // A miss: the least recently used way (the first of equals) is the victim, passing over the
  // reserved ways (tag_array::probe: a line with a sector whose fill is pending is not replaced).
  // (The least recently used way overall is that victim unless it is reserved itself.)
  // (A sector written while its fill is due is MODIFIED, not RESERVED: is_reserved_line.)
  auto reserved = [t](const l2_line& x) {
    bool r = false;
    for (unsigned s = 0; s < 4; ++s) r |= (x.valid >> s & 1) && !(x.early >> s & 1) && x.ready[s] > t;
    return r;
  };
  const uint64_t* lru = &l2_lru_[base];
  unsigned v = 0;
  for (unsigned w = 1; w < ways; ++w)
    if (lru[w] < lru[v]) v = w;
  victim = &l2_[base + v];
  if (!reserved(*victim)) return nullptr;
  unsigned best = ways;  // none
  for (unsigned w = 0; w < ways; ++w)
    if (!reserved(l2_[base + w]) && (best == ways || lru[w] < lru[best])) best = w;
  victim = best == ways ? nullptr : &l2_[base + best];
  return nullptr;
}

// A read's fill is in the DRAM -> L2 queue, taken into L2 in the L2 step of cycle t (not before
// the next step: a fill never waits for a step already made).
void memory_system::fill_due(unsigned sp, uint64_t t, uint64_t key) {
  t = std::max(t, l2_stepped_);
  sp_[sp].due.push_back({t, key});
  ++fills_due_;
  next_due_ = std::min(next_due_, t);
}

// baseline_cache::fill in sub-partition sp's L2 step of cycle c: the sector goes to the L2
// index its miss took (fill_index) and the MSHR entry joins the ready list (mshr_table::
// mark_ready); its accesses leave from the next cycle on (l2_next_access).
void memory_system::l2_fill(unsigned sp, uint64_t key, uint64_t c) {
  sub_partition& P = sp_[sp];
  l2_mshr* f = fills_.find(key);
  if (!f) return;  // (none: its miss was made by a finished kernel)
  if (f->line != ~0u) fill_index(f->line, sector_of(key * 32), c);
  P.ready.push_back(key);
  ++l2_ready_;
}

// MSHR entry `key` ended without answering anyone (between kernels): its fill made first if
// `fill` (the data is in), its waiters dropped.
void memory_system::l2_drop(uint64_t key, bool fill) {
  l2_mshr* f = fills_.find(key);
  if (!f) return;
  if (fill && f->line != ~0u) fill_index(f->line, sector_of(key * 32), 0);
  woken_.clear();
  fill_waiters_.drain(f->waiting, woken_);
  fills_.erase(f);
}

// tag_array::fill(index, ...) with sector_cache_block::fill: the sector of the line at that
// index becomes MODIFIED if m_set_modified_on_fill, else VALID (a written sector loses its
// dirty state), readable if m_set_readable_on_fill; no longer RESERVED. That line is another
// than the miss's if the miss's line was replaced while the fill was due (a written sector is
// MODIFIED, not RESERVED: is_reserved_line).
void memory_system::fill_index(uint32_t line, unsigned sector, uint64_t c) {
  l2_line& l = l2_[line];
  if (l2_tag_[line] == ~0ull) return;  // (no line there: tag_array::fill would not be reached)
  const uint8_t bit = uint8_t(1u << sector);
  l.valid |= bit;
  l.dirty = uint8_t((l.dirty & ~bit) | (l.modified_on_fill & bit));
  if (l.readable_on_fill & bit) {
    l.unreadable &= uint8_t(~bit);
    l.readable_on_fill &= uint8_t(~bit);
  }
  l.early &= uint8_t(~bit);
  l.ready[sector] = c;
}

// memory_sub_partition::cache_cycle's first step: the head of the ready list
// (mshr_table::next_access) leaves into the L2 -> icnt queue unless that is full (access_ready
// is held then); a write-allocate read's slot answers nobody (L2_WR_ALLOC_R). The entry is freed
// once its last access has left.
void memory_system::l2_next_access(unsigned sp, uint64_t c) {
  sub_partition& P = sp_[sp];
  if (P.out_size() >= m_.l2_icnt_queue) {
    // The answers that entered the L2 -> icnt queue before this cycle and have not moved on.
    const auto entered = std::lower_bound(P.out_begin(), P.rep.end(), c, [](const reply& x, uint64_t v) { return x.q < v; });
    if (size_t(entered - P.out_begin()) >= m_.l2_icnt_queue) return;
  }
  l2_mshr* f = fills_.find(P.ready.front());
  if (f->waiting.count) {
    const waiter w = fill_waiters_.pop_front(f->waiting);
    if (w.client) answer(sp, c, {0, w.addr, w.client, w.tag, false, 0, 0, w.bytes});
  }
  if (f->waiting.count) return;
  fills_.erase(f);
  P.ready.pop_front();
  --l2_ready_;
  if (P.mshrs) --P.mshrs;
}

// A probe's outcome: counted (in total and per sub-partition) and logged (--mem-log) with the
// status data_cache::access returns (0 HIT, 1 HIT_RESERVED, 2 MISS, a sector miss too, 3
// RESERVATION_FAIL).
void memory_system::l2_probe(unsigned sp, uint64_t addr, uint64_t& total, unsigned status, uint64_t at) {
  ++total;
  ++sp_stats_[sp][status];
  if (log_) log_->add(mem_event_log::L2, at, sp, addr & ~uint64_t(31), 1u << (addr % m_.l2.line / 32 % 4), status);
}

// The access waits for the next cycle: not tried (a full queue), or tried and failed (a
// reservation fail, counted by its cause).
bool memory_system::l2_retry(unsigned sp, uint64_t now) {
  sp_[sp].l2_free = std::max(sp_[sp].l2_free, now + 1);
  return false;
}
bool memory_system::l2_fail(unsigned sp, uint64_t addr, uint64_t t, uint64_t now, uint64_t& cause) {
  l2_probe(sp, addr, st_.l2_reservation_fails, 3, t);
  ++cause;
  return l2_retry(sp, now);
}

// memory_sub_partition::cache_cycle's checks before an access, in its order: a stall for want of
// an MSHR holds while no entry is released (one reservation fail a try), then no access while the
// L2 -> DRAM or the L2 -> icnt queue is full (-gpgpu_dram_partition_queues' second and fourth
// fields). False: the access waits (l2_retry done).
bool memory_system::l2_queues_admit(unsigned sp, const l2_request& r, uint64_t t, uint64_t now) {
  sub_partition& P = sp_[sp];
  if (P.mshr_stall && P.mshrs >= m_.l2.mshrs) return l2_fail(sp, r.addr, t, now, st_.l2_fail_mshr_entry);
  P.mshr_stall = false;
  if (ch_[r.a.channel].l2_queue(r.a.sub_partition % m_.sub_per_channel) >= m_.l2_dram_queue) {
    ++st_.l2_queue_stalls;
    return l2_retry(sp, now);
  }
  // The L2 -> icnt queue's answers that entered it by this cycle (by q; `out` is ordered by q)
  // and have not moved on.
  if (P.out_size() >= m_.l2_icnt_queue) {
    const auto entered = std::upper_bound(P.out_begin(), P.rep.end(), t, [](uint64_t c, const reply& x) { return c < x.q; });
    if (size_t(entered - P.out_begin()) >= m_.l2_icnt_queue) {
      ++st_.l2_queue_stalls;
      return l2_retry(sp, now);
    }
  }
  return true;
}

// Allocate on miss: the victim way takes the line; a dirty victim is written back to DRAM in the
// background, one write per MODIFIED sector, a partly written one too (its write-back carries the
// byte mask; the DRAM moves the whole 32-byte burst either way).
memory_system::l2_line* memory_system::l2_allocate(l2_line* l, uint64_t line, uint64_t t) {
  const size_t way = size_t(l - l2_.data());
  const uint64_t old = l2_tag_[way];
  if (l->dirty && old != ~0ull && line_mode_) {
    // A non-sectored line writes back GPGPU-Sim's line_cache_block::get_modified_size, 128 bytes.
    dram_push(decode(old * m_.l2.line), true, t, 0, 128);
  } else if (l->dirty && old != ~0ull) {
    for (unsigned s = 0; s < 4; ++s)
      if (l->dirty >> s & 1) dram_push(decode(old * m_.l2.line + s * 32), true, t, 0);
  }
  *l = l2_line{};
  l2_tag_[way] = line;
  l2_written_[way] = {0, 0, 0, 0};
  return l;
}

// A write: write-back L2 with lazy fetch-on-read (data_cache::wr_hit_wb,
// wr_miss_wa_lazy_fetch_on_read): the sector becomes MODIFIED with the written bytes added to its
// byte mask, without a DRAM read, and is readable once all 32 bytes are written
// (update_m_readable). Counted by the probe: HIT (VALID or MODIFIED, readable or not),
// HIT_RESERVED (a fill is due: the sector is MODIFIED from now, readable at the fill) or MISS /
// SECTOR_MISS.
void memory_system::l2_write(unsigned sp, l2_line* l, const l2_request& r, unsigned sector, bool present, bool reserved, uint64_t t) {
  const uint8_t bit = uint8_t(1u << sector);
  ++st_.l2_writes;
  auto& words = l2_written_[size_t(l - l2_.data())];
  bool complete;
  if (line_mode_) {
    // A non-sectored line: one byte mask over its (at most 128) bytes, readable once all are
    // written (line_cache_block's m_readable); an access of more than a sector writes its whole
    // 32-byte words.
    const unsigned first = unsigned(r.addr % m_.l2.line / 32);
    if (r.bytes > 32)
      for (unsigned k = first; k < first + (r.bytes + 31) / 32 && k < 4; ++k) words[k] = mem_port::whole_sector;
    else
      words[first] |= r.written;
    complete = true;
    for (unsigned k = 0; k < m_.l2.line / 32; ++k) complete &= words[k] == mem_port::whole_sector;
  } else {
    uint32_t& w = words[sector];
    w |= r.written;
    complete = w == mem_port::whole_sector;
  }
  if (reserved) {
    // wr_miss_wa_lazy_fetch_on_read on HIT_RESERVED: the fill will leave it MODIFIED, and
    // readable if this write does not write the whole sector.
    l2_probe(sp, r.addr, st_.l2_pending_hits, 1, t);
    l->early |= bit;
    l->modified_on_fill |= bit;
    const bool whole = line_mode_ ? r.bytes >= m_.l2.line : r.written == mem_port::whole_sector;
    if (!whole) l->readable_on_fill |= bit;
  } else if (present) {
    l2_probe(sp, r.addr, st_.l2_hits, 0, t);
  } else {  // allocated (allocate_line, allocate_sector of an INVALID sector): no fill flags
    l2_probe(sp, r.addr, st_.l2_misses, 2, t);
    l->valid |= bit;
    l->modified_on_fill &= uint8_t(~bit);
    l->readable_on_fill &= uint8_t(~bit);
  }
  if (complete)
    l->unreadable &= uint8_t(~bit);
  else if (reserved || !present)  // a written VALID sector stays readable
    l->unreadable |= bit;
  l->dirty |= bit;
  if (l->ready[sector] != ~0ull) l->ready[sector] = std::max(l->ready[sector], t);
}

// A read that is no hit (rd_miss_base, send_read_request): it joins the sector's MSHR entry if
// there is one (answered when the fill is in, after the accesses merged before it), else takes a
// new one and sends a read to the DRAM whose fill goes to this line's index. Counted as the
// probe sees it: HIT_RESERVED while the sector's fill is due, else MISS (a SECTOR_MISS too).
void memory_system::l2_read_miss(unsigned sp, l2_line* l, const l2_request& r, unsigned sector, bool reserved, bool early, uint64_t t,
                                 l2_mshr* f, bool fresh) {
  const uint8_t bit = uint8_t(1u << sector);
  if (!reserved) {
    // allocate_line / allocate_sector: RESERVED until the fill, which leaves it MODIFIED if it is
    // now (a partly written sector, also one written while an earlier fill was due: `early`)
    // and makes it readable (m_readable is set now, the fill merging with the written bytes).
    l->valid |= bit;
    l->modified_on_fill = uint8_t((l->modified_on_fill & ~bit) | (l->dirty & bit));
    l->readable_on_fill &= uint8_t(~bit);
    l->unreadable &= uint8_t(~bit);
    l->early &= uint8_t(~bit);
    l->ready[sector] = ~0ull;
  }
  if (!f) std::tie(f, fresh) = fills_.try_emplace(fill_key(r.addr));
  fill_waiters_.push_back(f->waiting, {r.client, r.tag, r.addr / 32 * 32, r.bytes});
  // (A MISS that joins an entry: its line was replaced while the fill was due.)
  if (reserved || (!fresh && !early)) {
    l2_probe(sp, r.addr, st_.l2_pending_hits, 1, t);
  } else {
    l2_probe(sp, r.addr, st_.l2_misses, 2, t);
  }
  if (!fresh) return;
  f->line = uint32_t(l - l2_.data());
  ++sp_[sp].mshrs;
  // (Non-sectored: the miss fetches the whole line, send_read_request's get_atom_sz().)
  dram_push(r.a, false, t, fill_key(r.addr), line_bytes());
}

// One access of sub-partition sp's L2 slice in cycle max(its arrival, the tag port's next free
// cycle), one a cycle, in order (memory_sub_partition::cache_cycle): no access while a queue
// behind it is full (l2_queues_admit); a read miss needs an MSHR entry (one per sector,
// -gpgpu_cache:dl2 A:N), a read of a sector whose fill is on its way a merge slot (A:N:M), a line
// to allocate a way whose sectors are not pending. Otherwise the access stalls the input (a
// reservation fail) and is tried again in the next cycle. With drop_replies (between kernels)
// nothing stalls and nobody is answered.
bool memory_system::l2_access(unsigned sp, const l2_request& r, uint64_t now, bool drop_replies) {
  sub_partition& P = sp_[sp];
  const uint64_t t = std::max(r.t, P.l2_free);
  if (drop_replies)
    P.mshr_stall = false;
  else if (!l2_queues_admit(sp, r, t, now))
    return false;
  const uint64_t line = r.addr / m_.l2.line;
  const unsigned sector = sector_of(r.addr);
  const uint8_t bit = uint8_t(1u << sector);
  l2_line* victim = nullptr;
  // Between kernels any way may be replaced (t = ~0: nothing counts as pending).
  l2_line* l = l2_find(sp, line, victim, drop_replies ? ~0ull : t);
  // Every way of the set has a fill pending (tag_array::probe's RESERVATION_FAIL, counted as
  // LINE_ALLOC_FAIL by data_cache::process_tag_probe): stalled, reads and writes alike.
  if (!l && !victim) return l2_fail(sp, r.addr, t, now, st_.l2_fail_line_alloc);
  // The sector as tag_array::probe sees it (fills up to this cycle's are in: fill_index).
  const bool present = l && (l->valid & bit);
  const bool early = present && (l->early & bit);                   // MODIFIED, its fill still due
  const bool reserved = present && !early && l->ready[sector] > t;  // RESERVED: its fill is due
  // A read hits a VALID sector and a MODIFIED one whose bytes are all written (or fetched);
  // m_readable counts only for a MODIFIED sector (a fill may leave a sector VALID, unreadable).
  const bool read_hit = present && !reserved && !(l->unreadable & l->dirty & bit);
  // A read that is no hit joins the sector's MSHR entry (a merge slot) or needs a new one.
  // A non-sectored L2's write-allocate 'W' write that is no hit sends a line read too (its own
  // MSHR checks, wr_miss_wa_naive).
  const bool naive = line_mode_ && r.write && m_.l2.write_alloc == 'W' && !(present && !reserved && !early);
  // A read's entry is taken here (made if new, dropped again if the access stalls) and handed
  // to l2_read_miss: one look-up.
  l2_mshr* entry = nullptr;
  bool fresh = false;
  if (!drop_replies && naive && !read_hit) {
    if (auto* f = fills_.find(fill_key(r.addr))) {
      if (f->waiting.count >= m_.l2.mshr_merge) return l2_fail(sp, r.addr, t, now, st_.l2_fail_mshr_merge);  // joins its entry
    } else if (P.mshrs >= m_.l2.mshrs) {                                                                     // a new miss
      P.mshr_stall = true;
      return l2_fail(sp, r.addr, t, now, st_.l2_fail_mshr_entry);
    }
  } else if (!drop_replies && !r.write && !read_hit) {
    std::tie(entry, fresh) = fills_.try_emplace(fill_key(r.addr));
    if (!fresh) {
      if (entry->waiting.count >= m_.l2.mshr_merge) return l2_fail(sp, r.addr, t, now, st_.l2_fail_mshr_merge);  // joins its entry
    } else if (P.mshrs >= m_.l2.mshrs) {                                                                         // a new miss
      fills_.erase(entry);
      P.mshr_stall = true;
      return l2_fail(sp, r.addr, t, now, st_.l2_fail_mshr_entry);
    }
  }
  P.l2_free = t + 1;
  ++st_.l2_accesses;
  if (!l) l = l2_allocate(victim, line, t);
  l2_lru_[size_t(l - l2_.data())] = ++stamp_;
  if (naive) {
    l2_write_miss_naive(sp, l, r, reserved || early, t);
    return true;  // acknowledged from the DRAM
  }
  if (r.write) {
    l2_write(sp, l, r, sector, present, reserved, t);
  } else if (read_hit) {
    l2_probe(sp, r.addr, st_.l2_hits, 0, t);
  } else {
    l2_read_miss(sp, l, r, sector, reserved, early, t, entry, fresh);
    return true;  // answered with the fill
  }
  // Reply through the crossbar.
  if (!drop_replies) answer(sp, t, {0, r.addr, r.client, r.tag, r.write, 0, 0, r.bytes});  // a hit or a write: leaves now
  return true;
}

// A non-sectored L2's write miss with write-allocate 'W' (data_cache::wr_miss_wa_naive): the
// write goes to the DRAM as it is (its data size in 32-byte bursts; send_write_request) and is
// acknowledged from there (memory_sub_partition::cache_cycle acknowledges a write at the L2 only
// under FETCH_ON_WRITE or LAZY_FETCH_ON_READ), and a read of the whole line follows it out of the
// L2's miss queue, one cycle later (L2_WR_ALLOC_R, send_read_request: a new MSHR entry, or merged
// into the line's outstanding one), whose fill answers nobody. The line is allocated (reserved
// until the fill, then valid), not modified: the data went to the DRAM. Counted as the probe
// sees it: HIT_RESERVED while the line's fill is due, else MISS.
bool memory_system::l2_write_miss_naive(unsigned sp, l2_line* l, const l2_request& r, bool reserved, uint64_t t) {
  ++st_.l2_writes;
  if (r.client) {
    const uint64_t id = next_ack_++;
    acks_.emplace(id, reply{0, r.addr, r.client, r.tag, true, 0, 0, r.bytes});
    dram_push(r.a, true, t, id, r.bytes, true);
  } else {
    dram_push(r.a, true, t, 0, r.bytes);
  }
  if (reserved) {
    l2_probe(sp, r.addr, st_.l2_pending_hits, 1, t);
  } else {
    l2_probe(sp, r.addr, st_.l2_misses, 2, t);
    l->valid |= 1;
    l->unreadable &= uint8_t(~1u);
    l->modified_on_fill &= uint8_t(~1u);
    l->readable_on_fill &= uint8_t(~1u);
    l->ready[0] = ~0ull;
  }
  // A slot of the line's MSHR entry (merged into the outstanding fill, or a new entry), answering
  // nobody.
  auto [f, fresh] = fills_.try_emplace(fill_key(r.addr));
  fill_waiters_.push_back(f->waiting, {nullptr, 0, r.addr, r.bytes});
  if (fresh) {
    f->line = uint32_t(l - l2_.data());
    ++sp_[sp].mshrs;
    dram_push(r.a, false, t + 1, fill_key(r.addr), line_bytes());
  }
  return true;
}

}  // namespace gpuvp::gpu_memory
