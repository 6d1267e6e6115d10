#include "ldst_unit.h"

#include <algorithm>

#include "sm_core.h"

namespace gpuvp::sm {

ldst_unit::ldst_unit(sm_core& core, const gpu_config& cfg, l1_tags* tags)
    : stallable_unit("LDST"), core_(core), cfg_(cfg), tags_(tags) {
  if (tags_->tag.size() != size_t(cfg.l1_sets) * cfg.l1_ways) tags_->reset(cfg.l1_sets * cfg.l1_ways);
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

void ldst_unit::done_one(unsigned slot) {
  if (--slots_[slot].outstanding == 0) {
    core_.complete(slots_[slot].inst);
    free_slots_.push_back(slot);
  }
}

size_t ldst_unit::find_line(uint64_t line) const {
  const size_t base = size_t(line % cfg_.l1_sets) * cfg_.l1_ways;
  for (unsigned w = 0; w < cfg_.l1_ways; ++w)
    if (tags_->tag[base + w] == line) return base + w;
  return SIZE_MAX;
}

size_t ldst_unit::allocate_line(uint64_t line) {
  const size_t base = size_t(line % cfg_.l1_sets) * cfg_.l1_ways;
  size_t victim = base;
  for (unsigned w = 1; w < cfg_.l1_ways; ++w)
    if (tags_->lru[base + w] < tags_->lru[victim]) victim = base + w;
  tags_->tag[victim] = line;
  tags_->valid[victim] = 0;
  tags_->lru[victim] = ++tags_->stamp;
  return victim;
}

// Requests in the miss queue proper at `now`: those past the L1 latency (the queue is in
// ready order; the others are still in the L1 latency pipeline ahead of the tag check).
size_t ldst_unit::queued_at(uint64_t now) const {
  size_t n = 0;
  while (n < miss_queue_.size() && miss_queue_[n].ready <= now) ++n;
  return n;
}

void ldst_unit::prepare() {
  const warp_inst& w = dispatch_reg_;
  prepared_ = true;
  slot_ = new_slot(w);
  slots_[slot_].outstanding = 1;  // held until the last access is made
  lines_.clear();
  conflict_cycles_ = 0;
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
    // Coalescing: one access per L1 line touched, with the 32-byte sectors its lanes' bytes
    // [addr, addr + width) cover, in lane order.
    const unsigned width = std::max<unsigned>(1, w.width);
    for (unsigned t = 0; t < 32; ++t) {
      if (!(w.active_mask >> t & 1)) continue;
      for (uint64_t b = w.addrs[t] / 32 * 32; b < w.addrs[t] + width; b += 32) {
        const uint64_t line = b / cfg_.l1_line;
        const uint8_t bit = uint8_t(1u << (b % cfg_.l1_line / 32 % 8));
        auto it = std::find_if(lines_.begin(), lines_.end(), [&](const line_access& a) { return a.line == line; });
        if (it == lines_.end()) lines_.push_back({line, bit});
        else it->sectors |= bit;
      }
    }
    std::reverse(lines_.begin(), lines_.end());  // pop_back gives lane order
  }
}

// One line access of a global/local instruction. Loads: every sector is a hit, a pending hit
// (merged into the sector's MSHR) or a miss (a new MSHR and a miss-queue entry); if any sector
// cannot get its MSHR or queue entry the whole access fails and is retried next cycle (a
// reservation fail, counted by cause). Stores write through (-gpgpu_cache:dl1 write policy T):
// one miss-queue entry per sector, acknowledged by the memory side; a resident sector stays valid.
bool ldst_unit::global_access(const line_access& a, bool store, uint64_t now) {
  sm_stats& st = core_.st_;
  const mem_config& m = cfg_.mem;
  const unsigned nsec = unsigned(__builtin_popcount(a.sectors));
  const uint64_t sec0 = a.line * (cfg_.l1_line / 32);
  size_t idx = find_line(a.line);
  const size_t queued = queued_at(now);
  if (store) {
    if (queued + nsec > m.l1.miss_queue) {
      ++st.l1_fails[unsigned(l1_fail::miss_queue_full)];
      return false;
    }
    if (idx != SIZE_MAX) tags_->lru[idx] = ++tags_->stamp;
    for (unsigned s = 0; s < 8; ++s)
      if (a.sectors >> s & 1) {
        ++st.l1_write_accesses;
        ++slots_[slot_].outstanding;
        miss_queue_.push_back({sec0 + s, now + cfg_.l1_latency, true, slot_});
      }
    return true;
  }
  // Loads: classify first, commit only if every sector can proceed.
  unsigned new_mshrs = 0, new_requests = 0;
  for (unsigned s = 0; s < 8; ++s) {
    if (!(a.sectors >> s & 1)) continue;
    if (idx != SIZE_MAX && (tags_->valid[idx] >> s & 1)) continue;
    auto it = mshrs_.find(sec0 + s);
    if (it != mshrs_.end()) {
      if (it->second.size() >= cfg_.l1_mshr_merge) {
        ++st.l1_fails[unsigned(l1_fail::mshr_merge)];
        return false;
      }
    } else {
      ++new_mshrs;
      ++new_requests;
    }
  }
  if (mshrs_.size() + new_mshrs > cfg_.l1_mshrs) {
    ++st.l1_fails[unsigned(l1_fail::mshr_entry)];
    return false;
  }
  if (queued + new_requests > m.l1.miss_queue) {
    ++st.l1_fails[unsigned(l1_fail::miss_queue_full)];
    return false;
  }
  if (idx == SIZE_MAX && new_requests) idx = allocate_line(a.line);  // allocate on miss
  if (idx != SIZE_MAX) tags_->lru[idx] = ++tags_->stamp;
  bool any_hit = false;
  for (unsigned s = 0; s < 8; ++s) {
    if (!(a.sectors >> s & 1)) continue;
    ++st.l1_accesses;
    if (idx != SIZE_MAX && (tags_->valid[idx] >> s & 1)) {
      ++st.l1_hits;
      any_hit = true;
      continue;
    }
    ++slots_[slot_].outstanding;
    auto [it, fresh] = mshrs_.try_emplace(sec0 + s);
    it->second.push_back(slot_);
    if (fresh) {
      ++st.l1_misses;
      ++st.mem_reads;
      miss_queue_.push_back({sec0 + s, now + cfg_.l1_latency, false, 0});
    } else {
      ++st.l1_pending_hits;
    }
  }
  if (any_hit) {
    ++slots_[slot_].outstanding;
    events_.push({now + cfg_.l1_latency, ev::done, slot_});
  }
  return true;
}

void ldst_unit::cycle() {
  const uint64_t now = core_.cycle_;
  if (busy()) ++active_cycles;  // an access being made or outstanding
  while (!events_.empty() && events_.top().at <= now) {
    event e = events_.top();
    events_.pop();
    if (e.kind == ev::fill) {
      const uint64_t line = e.key / (cfg_.l1_line / 32);
      size_t idx = find_line(line);
      if (idx == SIZE_MAX) idx = allocate_line(line);  // evicted meanwhile: allocate again
      tags_->valid[idx] |= uint8_t(1u << (e.key % (cfg_.l1_line / 32)));
      auto it = mshrs_.find(e.key);
      std::vector<unsigned> waiters = std::move(it->second);
      mshrs_.erase(it);
      for (unsigned s : waiters) done_one(s);
    } else {
      done_one(unsigned(e.key));
    }
  }
  // The miss queue sends one request per cycle to the memory side.
  if (!miss_queue_.empty() && miss_queue_.front().ready <= now) {
    const request r = miss_queue_.front();
    miss_queue_.pop_front();
    const uint64_t lat = core_.mem_->access(r.sector_addr * 32, 32, r.write, now + core_.mem_base_, this, r.slot);
    if (r.write) ++core_.st_.mem_writes;
    if (lat == mem_port::pending) ++awaiting_;
    else if (r.write) events_.push({now + lat, ev::ack, r.slot});
    else events_.push({now + lat, ev::fill, r.sector_addr});
  }
  if (dispatch_reg_.empty()) {
    occupied_ >>= 1;
    return;
  }
  if (!prepared_) prepare();
  inflight& f = slots_[slot_];
  const warp_inst& w = dispatch_reg_;
  bool finished = false;
  if (w.space == mem_space::shared) {
    if (--conflict_cycles_ == 0) {
      ++f.outstanding;
      events_.push({now + cfg_.smem_latency, ev::done, slot_});
      finished = true;
    }
  } else if (lines_.empty()) {
    // constant cache, or a memory opcode traced without addresses: an L1-latency access
    ++f.outstanding;
    events_.push({now + cfg_.l1_latency, ev::done, slot_});
    finished = true;
  } else {
    if (global_access(lines_.back(), w.store, now)) lines_.pop_back();
    finished = lines_.empty();
  }
  if (finished) {
    dispatch_reg_.clear();
    done_one(slot_);  // drop the hold: completes now if nothing is outstanding
  }
  occupied_ >>= 1;
}

// A completion the memory delivers later: an event in the SM's cycles.
void ldst_unit::mem_done(uint64_t addr, bool write, unsigned tag, uint64_t cycle) {
  --awaiting_;
  const uint64_t at = cycle - std::min(cycle, core_.mem_base_);
  if (write) events_.push({at, ev::ack, tag});
  else events_.push({at, ev::fill, addr / 32});
}

}  // namespace gpuvp::sm
